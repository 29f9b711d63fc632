import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local as the local stack runs it (lib/local/dynamodb-local.ts compiles this once).
 * Takes DynamoDBLocal.jar's own arguments and changes two things the jar offers no option for:
 * - it listens on 127.0.0.1 only (the jar binds every interface; its Jetty connector is not
 *   reachable through any flag, so it is set here before the server starts);
 * - it exits when its standard input closes. The parent keeps a pipe open and never writes;
 *   the kernel closes it when the parent dies, even on SIGKILL, so no DynamoDB Local outlives
 *   its server and keeps a data directory open.
 * Prints "ready" on standard output once it accepts connections.
 */
public final class LocalDynamoDb {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    // start() reports a port it cannot bind on stderr and returns normally.
    proxy.start();
    if (!server.isStarted()) System.exit(1);
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() != -1) {
      // The parent never writes: anything read is ignored until end of input.
    }
    System.exit(0);
  }
}
