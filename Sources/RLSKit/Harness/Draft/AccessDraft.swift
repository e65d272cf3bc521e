import Foundation
import Postgres

/// `rlskit init`: a first access file drawn from the catalog. Facts the foreign keys tell
/// (owner, group and membership columns) are written down; every intent is a `?` the user
/// must answer, because today's policies are what the file is meant to test, never its source.
@_spi(CLI) public enum AccessDraft {
    public struct Options: Sendable {
        /// The schemas to declare; nil reads the data API's setting (see `ExposedSchemas`).
        var exposedSchemas: [String]?
        public init(exposedSchemas: [String]? = nil) { self.exposedSchemas = exposedSchemas }
    }

    public struct Draft: Sendable {
        public var text: String
        /// The schemas declared in `expose`.
        public var schemas: [String] = []
        public var tables = 0
        public var memberships = 0
        public var buckets = 0
        /// How many `?` the user has to answer.
        public var questions = 0
        /// What was not read (`storage.buckets not read: it is a view, …`), also a comment in `text`.
        public var unread: [String] = []
    }

    public static func run(options: Options = Options(), on database: ConnectionString) throws -> Draft {
        let conn = try PostgresConnection(database)
        let schemas = try options.exposedSchemas ?? ExposedSchemas.detect(conn).names
        // As snapshot and audit do: schemas that do not exist would give a draft of nothing.
        if try Catalog.existingSchemas(conn, schemas).isEmpty {
            let names = schemas.map { SQL.display($0) }.joined(separator: ", ")
            throw ConfigurationError(
                "exposed schema\(schemas.count == 1 ? " \(names) does" : "s \(names) do") not exist in this database: name existing schemas in --exposed-schemas"
            )
        }
        let (tables, storage, buckets, unread, helpers) = try read(conn, schemas: schemas)
        var draft = render(
            schemas: schemas, tables: tables, storagePolicies: storage, buckets: buckets, helpers: helpers,
            unread: unread)
        draft.schemas = schemas
        return draft
    }

    /// A membership candidate: a user column (a uuid referencing auth.users) and a group column
    /// referencing another table, unique together or in a table named like a membership.
    struct Membership {
        var table: Table
        var user: Column
        var group: Column
        var role: Column?
    }

    /// Only tables and columns an access-file line can name (see `Text.name`).
    static func membership(_ t: Table) -> Membership? {
        guard Text.qualified(t.schema, t.name) != nil,
            let user = t.columns.first(where: { $0.holdsUserID && Text.name($0.name) != nil })
        else {
            return nil
        }
        let groups = t.columns.filter { c in
            Text.name(c.name) != nil && c.name != user.name && !c.holdsUserID && !c.referencesAuthUsers
                && c.references.map { $0.schema != t.schema || $0.table != t.name } ?? false
        }
        let named = t.name.contains("member")
        guard
            let group = groups.first(where: { t.uniqueKeys.contains([$0.name, user.name]) })
                ?? (named ? groups.first : nil)
        else { return nil }
        let role = t.columns.first { c in
            Text.name(c.name) != nil && (c.name == "role" || c.name.hasSuffix("_role"))
                && (!c.labels.isEmpty || ["text", "varchar", "bpchar"].contains(c.baseType))
        }
        return Membership(table: t, user: user, group: group, role: role)
    }
}
