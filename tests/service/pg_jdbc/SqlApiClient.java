// pgJDBC (Debian's libpostgresql-jdbc-java) against smq's PostgreSQL-protocol listener.
// java -cp postgresql.jar:. SqlApiClient PORT KEY  -> one line per check, "name<TAB>value" (tests/service/test_pgwire_jdbc.py)
import java.sql.*;
import java.util.*;

public class SqlApiClient {
    static void print(String name, Object value) { System.out.println(name + "\t" + value); }

    static String rows(ResultSet rs) throws SQLException {
        StringBuilder out = new StringBuilder();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            List<String> cells = new ArrayList<>();
            for (int i = 1; i <= n; i++) cells.add(String.valueOf(rs.getObject(i)));
            out.append(String.join(",", cells)).append(";");
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/shop";
        Properties props = new Properties();
        props.setProperty("user", "jdbc");
        props.setProperty("password", args[1]);
        props.setProperty("sslmode", "disable");
        try (Connection conn = DriverManager.getConnection(url, props)) {
            DatabaseMetaData meta = conn.getMetaData();
            print("product", meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion());
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = meta.getTables(null, "public", "%", new String[] {"TABLE"})) {
                while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
            }
            print("tables", String.join(",", tables));
            List<String> columns = new ArrayList<>();
            try (ResultSet rs = meta.getColumns(null, "public", "OrdersModel", "%")) {
                while (rs.next()) columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME"));
            }
            print("columns", String.join(",", columns));
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT channel, MEASURE(\"orderCount\") AS orders FROM \"OrdersModel\" GROUP BY 1 ORDER BY 1")) {
                print("grouped", rows(rs));
            }
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT DATE_TRUNC('quarter', \"orderDate\") AS q, MEASURE(\"orderCount\") AS n FROM \"OrdersModel\" "
                    + "WHERE status = ? AND \"orderDate\" >= ? GROUP BY 1 ORDER BY 1")) {
                for (int run = 0; run < 6; run++) { // past prepareThreshold (5): a named server-side statement, binary transfer
                    ps.setString(1, "delivered");
                    ps.setDate(2, java.sql.Date.valueOf("2024-01-01"));
                    try (ResultSet rs = ps.executeQuery()) { print("prepared" + run, rows(rs)); }
                }
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT MEASURE(\"orderCount\") FROM \"OrdersModel\" WHERE \"orderId\" < ?")) {
                ps.setInt(1, 100);
                try (ResultSet rs = ps.executeQuery()) { print("int_param", rows(rs)); }
            }
            for (String[] check : new String[][] {{"unknown_column", "SELECT chanel FROM \"OrdersModel\""},
                                                  {"write", "DELETE FROM \"OrdersModel\""}}) {
                try (Statement st = conn.createStatement()) {
                    st.executeQuery(check[1]);
                    print(check[0], "no error");
                } catch (SQLException e) {
                    print(check[0], e.getSQLState() + " " + e.getMessage().replace('\n', ' '));
                }
            }
        }
        try (Connection conn = DriverManager.getConnection(url, "jdbc", "wrong-key")) {
            print("wrong_key", "connected");
        } catch (SQLException e) {
            print("wrong_key", e.getSQLState());
        }
    }
}
