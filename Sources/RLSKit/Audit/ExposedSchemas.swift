import Foundation
import Postgres

/// The schemas the data API serves: `--exposed-schemas`, else PostgREST's `pgrst.db_schemas`
/// (set for role authenticator, for this database, or for the session), else `public`.
public struct ExposedSchemas: Sendable, Equatable {
    public var names: [String]
    /// Where they came from.
    public var origin: SettingSource
    /// The same, for the report: "--exposed-schemas", "pgrst.db_schemas of role authenticator", "default: …".
    public var source: String {
        origin == .platformDefault ? "default: no pgrst.db_schemas setting" : origin.description
    }

    public init(names: [String], origin: SettingSource) {
        self.names = names
        self.origin = origin
    }

    /// Parses a comma list (`public, "My Schema"`); empty entries are dropped.
    public static func parseList(_ text: String) -> [String] {
        text.split(separator: ",").map { part -> String in
            let t = part.trimmingCharacters(in: .whitespaces)
            if t.count >= 2, t.hasPrefix("\""), t.hasSuffix("\"") {
                return String(t.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
            }
            return t
        }.filter { !$0.isEmpty }
    }

    static let query = """
        with s as (
          select r.rolname, d.setdatabase, substr(c, length('pgrst.db_schemas=') + 1) as value
          from pg_catalog.pg_db_role_setting d
          left join pg_catalog.pg_roles r on r.oid = d.setrole
          cross join lateral unnest(d.setconfig) c
          where c like 'pgrst.db_schemas=%'
        ), db as (select oid from pg_catalog.pg_database where datname = current_database())
        select (select value from s where rolname = 'authenticator' and setdatabase = (select oid from db)) as role_db,
               (select value from s where rolname = 'authenticator' and setdatabase = 0) as role_all,
               (select value from s where rolname is null and setdatabase = (select oid from db)) as db,
               nullif(current_setting('pgrst.db_schemas', true), '') as session
        """

    /// Reads the data API's setting; `public` when there is none.
    public static func detect(_ conn: PostgresConnection) throws -> ExposedSchemas {
        detect(from: try conn.query(query).rows[0])
    }

    /// From a row of `query`.
    static func detect(from row: PostgresRow) -> ExposedSchemas {
        let sources: [(String, String)] = [
            ("role_db", "pgrst.db_schemas of role authenticator in this database"),
            ("role_all", "pgrst.db_schemas of role authenticator"),
            ("db", "pgrst.db_schemas of this database"),
            ("session", "pgrst.db_schemas setting"),
        ]
        for (column, label) in sources {
            if let value = row[column] {
                let names = parseList(value)
                if !names.isEmpty { return ExposedSchemas(names: names, origin: .database(label)) }
            }
        }
        return ExposedSchemas(names: ["public"], origin: .platformDefault)
    }
}
