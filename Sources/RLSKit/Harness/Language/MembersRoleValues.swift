import Foundation
import Postgres

/// A members block's `roles` values against the role column's enum: a value the type does not
/// have would fail every seeded membership, so it is the file's mistake, found before any test.
enum MembersRoleValues {
    /// The enum behind `column` of `table` (through a domain), as `schema.name` and its labels in
    /// order; nil when the column is not an enum.
    static func labels(_ conn: PostgresConnection, table: String, column: String) throws -> (String, [String])? {
        let rows = try conn.query(
            """
            select tn.nspname as schema, t.typname as name,
              (select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid)::text as labels
            from pg_attribute a
            join pg_type t0 on t0.oid = a.atttypid
            join pg_type t on t.oid = case when t0.typtype = 'd' then t0.typbasetype else t0.oid end
            join pg_namespace tn on tn.oid = t.typnamespace
            where a.attrelid = to_regclass($1) and a.attname = $2 and not a.attisdropped and t.typtype = 'e'
            """, [table, column]
        ).rows
        guard let row = rows.first else { return nil }
        let schema: String = try row.decode("schema")
        let name: String = try row.decode("name")
        let json: String? = try row.decode("labels")
        let labels = (try? JSONSerialization.jsonObject(with: Data((json ?? "[]").utf8))) as? [String] ?? []
        return (SQL.qualified(schema, name), labels)
    }

    static func check(_ m: MembersIntent, _ conn: PostgresConnection) throws {
        guard !m.roles.isEmpty, !m.roleColumn.isEmpty,
            let (type, labels) = try labels(conn, table: m.qualifiedName, column: m.roleColumn)
        else { return }
        for r in m.roles where !labels.contains(r) {
            throw InputError(
                m.settings["roles"] ?? m.location,
                "'\(r)' is not a value of \(type) (\(labels.joined(separator: ", "))): fix the 'roles' line")
        }
    }
}
