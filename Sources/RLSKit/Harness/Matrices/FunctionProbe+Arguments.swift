import Postgres

/// How the probe fills a function's arguments from the seeded rows.
extension FunctionProbe {
    /// Why the probe cannot call `c` at all: an argument of a type it has no value for and no
    /// default (nil: every argument can be filled).
    static func unfillable(_ c: Candidate) -> String? {
        for i in c.argTypes.indices where !hasDefault(c, i) {
            let base = i < c.argBases.count ? c.argBases[i] : c.argTypes[i]
            let label = i < c.argLabels.count ? c.argLabels[i] : ""
            if constant(base, user: nil) == nil && label.isEmpty {
                let name = i < c.argNames.count && !c.argNames[i].isEmpty ? c.argNames[i] : "$\(i + 1)"
                return "argument \(name) of type \(c.argTypes[i]) cannot be filled (and has no default)"
            }
        }
        return nil
    }

    static func hasDefault(_ c: Candidate, _ i: Int) -> Bool { i >= c.argTypes.count - c.defaults }

    /// The call's argument list: positional until the first argument left to its default, then
    /// by name (an unnamed one after that is left to its default too). `values[i]` nil: default.
    static func argumentList(_ c: Candidate, _ values: [String?]) -> (sql: String, bound: [String]) {
        var parts: [String] = []
        var bound: [String] = []
        var named = false
        for (i, v) in values.enumerated() {
            let name = i < c.argNames.count ? c.argNames[i] : ""
            guard let v, !(named && name.isEmpty) else {
                named = true
                continue
            }
            bound.append(v)
            let param = "$\(bound.count)::\(c.argTypes[i])"
            parts.append(named ? "\(SQL.ident(name)) => \(param)" : param)
        }
        return (parts.joined(separator: ", "), bound)
    }

    /// A value for argument `i`: the group's key for an argument naming the group, a user's id
    /// for `user_id`, else a row's value of the column it is named after (tables the body
    /// names first), else its default, else a constant of its type; nil: its default.
    static func value(_ c: Candidate, _ i: Int, _ args: Arguments, _ conn: PostgresConnection) throws -> String? {
        let name = i < c.argNames.count ? c.argNames[i] : ""
        let type = c.argTypes[i]
        let base = i < c.argBases.count ? c.argBases[i] : type
        let stem = argumentStem(name)
        if let g = args.group, g.type == type || g.type == base || g.type.hasPrefix(base + "("),
            g.names.contains(stem)
        {
            return g.key
        }
        if base == "uuid", userNames.contains(stem), let u = args.user { return u }
        let entity = stem.hasSuffix("_id") ? String(stem.dropLast(3)) : stem
        let words = bodyWords(c.body)
        let inBody = { (col: Column) in words.contains(col.table.lowercased()) }
        let textual = base == "text" || base == "character varying"
        if args.fresh && textual && !hasDefault(c, i) { return "rlskit probe \(i + 1)" }
        // A text argument takes the same-named column of a table the body uses, whatever its
        // type (invitations.role, an enum), before a same-typed column of an unrelated table.
        let named = c.columns.filter { $0.column == stem && ($0.type == type || (textual && inBody($0))) }
        let matches =
            named.filter(inBody) + named.filter { !inBody($0) }
            + c.columns.filter {
                ($0.table == entity || $0.table == entity + "s") && $0.column == "id" && $0.type == type
            }
        // An argument named after nothing (`acct`, `target`) takes a value of its type from a
        // table the body names (not a user's column), before a constant no row holds.
        // Keys only: a text argument is a new value (`new_name`), and the same old one would
        // change nothing visible.
        let typed =
            hasDefault(c, i) || textual || !["uuid", "bigint", "integer", "smallint"].contains(base)
            ? []
            : c.columns.filter { inBody($0) && $0.type == type && !userNames.contains($0.column) }
                .enumerated().sorted { a, b in
                    let (x, y) = (kinship(stem, a.element), kinship(stem, b.element))
                    return x != y ? x > y : a.offset < b.offset
                }.map(\.element)
        // The victim's row first: the call acts on what another user (or group) owns.
        for m in matches + typed {
            if let v: String = try conn.query(
                "select t.\(SQL.ident(m.column))::text from \(SQL.qualified(m.schema, m.table)) t where t.\(SQL.ident(m.column)) is not null order by (to_jsonb(t)::text ~ $1) desc limit 1",
                [args.prefer ?? "^$x"]
            ).rows.first?.decode(0) {
                return v
            }
        }
        if hasDefault(c, i) { return nil }
        let label = i < c.argLabels.count ? c.argLabels[i] : ""
        if !label.isEmpty { return label }
        return constant(base, user: args.user) ?? "1"
    }

    /// A value of type `base` that no row needs to hold (nil: none known). Any array takes the
    /// empty one: the call still does what it does for its other arguments.
    static func constant(_ base: String, user: String?) -> String? {
        if base.hasSuffix("[]") { return "{}" }
        switch base {
        case "uuid": return user ?? "00000000-0000-0000-0000-000000000001"
        case "boolean": return "true"
        case "jsonb", "json": return "{}"
        case "text", "character varying", "character", "citext", "name": return "probe"
        case "integer", "bigint", "smallint", "numeric", "real", "double precision": return "1"
        case "date", "timestamp with time zone", "timestamp without time zone": return "2000-01-01"
        case "time with time zone", "time without time zone": return "12:00"
        case "interval": return "1 day"
        case "bytea": return "\\x"
        case "inet", "cidr": return "192.0.2.1"
        default: return nil
        }
    }

    /// How well `column` suits an argument named `stem`: `target_membership_id` is a
    /// memberships' id (2), `org_id` an `organization_id` (1), else 0.
    static func kinship(_ stem: String, _ column: Column) -> Int {
        let table = column.table.lowercased()
        let single = table.hasSuffix("s") ? String(table.dropLast()) : table
        if column.column == "id", stem.hasSuffix(single + "_id") || stem == single { return 2 }
        let a = stem.hasSuffix("_id") ? String(stem.dropLast(3)) : stem
        let col = column.column.lowercased()
        let b = col.hasSuffix("_id") ? String(col.dropLast(3)) : col
        guard a.count >= 2, b.count >= 2 else { return 0 }
        return b.hasPrefix(a) || a.hasPrefix(b) || a.hasSuffix("_" + b) ? 1 : 0
    }

    /// The names in a function body (lowercased), to tell which tables it reads or writes.
    static func bodyWords(_ body: String) -> Set<String> {
        let s = Array(body.unicodeScalars)
        var out: Set<String> = []
        for t in SQLLexer.tokens(s) where t.kind == .word || t.kind == .quotedName {
            var w = String(String.UnicodeScalarView(s[t.start..<t.end]))
            if t.kind == .quotedName { w = String(w.dropFirst().dropLast()) }
            out.insert(w.lowercased())
        }
        return out
    }

    static let userNames: Set<String> = ["user_id", "uid", "profile_id", "member_id", "owner_id", "user"]

    /// `p_team_id` → `team_id`: the prefixes functions put on argument names.
    static func argumentStem(_ name: String) -> String {
        var stem = name.lowercased()
        for prefix in ["p_", "in_", "_", "target_"] where stem.hasPrefix(prefix) { stem.removeFirst(prefix.count) }
        return stem
    }
}
