import Foundation
import Postgres

/// The project's custom access-token hook. GoTrue calls it as supabase_auth_admin with the
/// user's claims and signs what it returns, so the checks must run with what it returns too.
public struct AccessTokenHook: Sendable, Equatable, CustomStringConvertible {
    public var schema: String
    public var function: String
    /// Where it was configured, for error lines ("supabase/config.toml:12", "--access-token-hook").
    public var source: String

    public init(schema: String, function: String, source: String) {
        self.schema = schema
        self.function = function
        self.source = source
    }

    /// `pg-functions://postgres/<schema>/<function>`; nil for other hooks (HTTP ones cannot be run here).
    public init?(uri: String, source: String) {
        let prefix = "pg-functions://postgres/"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(schema: String(parts[0]), function: String(parts[1]), source: source)
    }

    /// `schema.function`, as `--access-token-hook` takes it.
    public init?(name: String, source: String) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(schema: String(parts[0]), function: String(parts[1]), source: source)
    }

    public var description: String { "\(schema).\(function)" }
    var sqlName: String { SQL.ident(schema) + "." + SQL.ident(function) }

    /// The function must exist with GoTrue's signature before anything runs.
    func checkExists(_ conn: PostgresConnection) throws {
        let found = try conn.query(
            "select to_regprocedure($1) is not null", [sqlName + "(jsonb)"]
        ).rows.first?.values[0]
        guard found == "t" else {
            throw ConfigurationError(
                "custom access-token hook \(self)(jsonb) does not exist in the database (set in \(source)): "
                    + "create it in a migration, or fix the hook's name")
        }
    }
}
