/// "Users update their own profile" must not mean "users set their own is_admin": for each
/// protected column, the actor who may write its own row tries to insert and update it with a
/// different value, and the check passes only when that value is not stored — whatever
/// refuses it (a column privilege, a trigger that raises or resets it, a WITH CHECK).
struct ProtectedColumns {
    let info: TableInfo
    let intent: TableIntent

    /// Column types rlskit can pick a different value for.
    static func supported(_ c: TableInfo.ColumnInfo) -> Bool {
        ["B", "N", "S", "E", "D"].contains(c.category) || c.baseTypeName == "jsonb"
    }

    static let saved = "nullif(current_setting('rlskit.protected', true), '')"

    /// A value different from the row's current one (saved beforehand as text).
    static func changed(_ c: TableInfo.ColumnInfo) -> String {
        let old = "\(saved)::\(c.type)"
        switch c.category {
        case "B": return "(not coalesce(\(old), false))"
        case "N": return "(coalesce(\(old), 0) + 7)::\(c.type)"
        case "E":
            return "(select max(e) from unnest(enum_range(null::\(c.type))) e where e::text is distinct from \(saved))"
        case "D":
            return c.typeName == "date"
                ? "(coalesce(\(old), current_date) + 1)" : "(coalesce(\(old), now()) + interval '1 day')::\(c.type)"
        case "S": return "(case when \(saved) = 'admin' then 'owner' else 'admin' end)::\(c.type)"
        default:
            return
                "(case when \(saved) = '{\"role\": \"admin\"}' then '{\"role\": \"owner\"}' else '{\"role\": \"admin\"}' end)::\(c.type)"
        }
    }

    /// Saves the column's value on the row `where` picks, as the connecting role (before impersonating).
    static func save(_ c: TableInfo.ColumnInfo, table: String, where w: String) -> String {
        "select set_config('rlskit.protected', coalesce((select \(SQL.ident(c.name))::text from \(table) where \(w) limit 1), ''), true)"
    }

    /// The update judged by how many rows now hold the changed value (0 = protected).
    static func update(_ c: TableInfo.ColumnInfo, table: String, where w: String) -> String {
        let col = SQL.ident(c.name)
        let v = changed(c)
        return
            "with u as (update \(table) set \(col) = \(v) where \(w) returning \(col)) select count(*) from u where \(col) is not distinct from \(v)"
    }

    /// The row an insert with the column set writes, for naming the policies that let it through.
    static func insertRow(_ c: TableInfo.ColumnInfo, seeder: Seeder, owner: String, n: Int) -> CheckRow {
        var s = seeder
        s.fixed[c.name] = changed(c)
        let r = s.row(owner: owner, n: n)
        return CheckRow(
            table: seeder.table.sqlName, name: seeder.table.name, command: "INSERT", role: "",
            insert: (r.columns, r.values))
    }

    static func updateRow(_ c: TableInfo.ColumnInfo, table: TableInfo, where w: String) -> CheckRow {
        CheckRow(
            table: table.sqlName, name: table.name, command: "UPDATE", role: "", existing: w,
            assignments: [(SQL.ident(c.name), changed(c))])
    }

    /// An insert of `row` with the column set to a value no default gives; judged the same way.
    static func insert(_ c: TableInfo.ColumnInfo, seeder: Seeder, owner: String, n: Int) -> String {
        var s = seeder
        s.fixed[c.name] = changed(c)
        let r = s.row(owner: owner, n: n)
        let col = SQL.ident(c.name)
        return
            "with i as (insert into \(seeder.table.sqlName)"
            + InsertSQL.values(r.columns, r.values, overriding: s.overriding)
            + " returning \(col))"
            + " select count(*) from i where \(col) is not distinct from \(changed(c))"
    }
}
