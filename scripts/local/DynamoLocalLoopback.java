import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteJob;
import com.almworks.sqlite4java.SQLiteQueue;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local binds every interface and has no option to change that; it accepts any
 * credentials. `npm start` runs it through this launcher (Java's single-file source mode), which
 * builds the server from the usual command line and binds its connector to 127.0.0.1 only.
 *
 * It also indexes DynamoDB Local's stream records (the SQLite table `us`: one for all the streams of
 * the database, keyed by sequence number alone) by stream and by shard. On every write to a table
 * with a stream, DynamoDB Local looks up the first record of that table's stream; without an index
 * SQLite reads every stream record written before it, so each write cost more as the run went on
 * (measured: 1,000 two-item transactions on a new table took 1.6 s of the JVM's CPU with the index,
 * 14-27 s without it once 12,000 stream records of another table were there). The indexes change no
 * answer. It prints `stream records indexed` once they are made; should DynamoDB Local's internals
 * differ (another version), it says so on stderr and runs without them.
 */
public class DynamoLocalLoopback {
  static final String[] INDEXES = {
    "CREATE INDEX IF NOT EXISTS us_by_stream ON us (StreamID, SequenceNumber)",
    "CREATE INDEX IF NOT EXISTS us_by_shard ON us (ShardID, SequenceNumber)",
  };

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    for (Connector connector : jetty.getConnectors()) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
    Thread indexer = new Thread(() -> indexStreamRecords(proxy), "stream-record-index");
    indexer.setDaemon(true);
    indexer.start();
    proxy.join();
  }

  /**
   * Each database DynamoDB Local opens (one with -sharedDb, one per access key and region without it,
   * opened at its first request) gets the index once its tables exist: looked for every 200 ms until
   * the first is indexed, then every 5 s.
   */
  static void indexStreamRecords(Object proxy) {
    Set<SQLiteQueue> indexed = Collections.newSetFromMap(new IdentityHashMap<>());
    try {
      for (;;) {
        for (SQLiteQueue queue : queues(proxy)) {
          if (indexed.contains(queue)) continue;
          SQLiteJob<Object> job = new SQLiteJob<>() {
            @Override
            protected Object job(SQLiteConnection connection) throws Throwable {
              for (String index : INDEXES) connection.exec(index);
              return null;
            }
          };
          try {
            queue.execute(job).get();
          } catch (ExecutionException notYet) {
            continue; // its tables are made with the database's first request: tried again at the next look
          }
          if (indexed.isEmpty()) System.out.println("DynamoLocalLoopback: stream records indexed");
          indexed.add(queue);
        }
        Thread.sleep(indexed.isEmpty() ? 200 : 5_000);
      }
    } catch (InterruptedException stopped) {
      Thread.currentThread().interrupt();
    } catch (Throwable error) {
      System.err.println("DynamoLocalLoopback: stream records not indexed (" + error + ")");
    }
  }

  /** The SQLite queues reachable from the server through DynamoDB Local's own objects, maps and collections. */
  static List<SQLiteQueue> queues(Object root) throws IllegalAccessException {
    List<SQLiteQueue> found = new ArrayList<>();
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    ArrayDeque<Object> next = new ArrayDeque<>(List.of(root));
    while (!next.isEmpty()) {
      Object object = next.poll();
      if (object == null || !seen.add(object)) continue;
      if (object instanceof SQLiteQueue queue) {
        found.add(queue);
      } else if (object instanceof Map<?, ?> map) {
        for (Object value : new ArrayList<>(map.values())) if (value != null) next.add(value);
      } else if (object instanceof Collection<?> collection) {
        for (Object element : new ArrayList<>(collection)) if (element != null) next.add(element);
      } else if (object.getClass().getName().startsWith("software.amazon.dynamodb.")) {
        for (Class<?> c = object.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
          for (Field f : c.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive() || !f.trySetAccessible()) continue;
            Object value = f.get(object);
            if (value != null) next.add(value);
          }
        }
      }
    }
    return found;
  }
}
