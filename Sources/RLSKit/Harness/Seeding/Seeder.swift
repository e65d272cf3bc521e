import Foundation

/// Builds rows for a table from the catalog: the owner column, declared seed expressions,
/// and a type-appropriate value for every NOT NULL column without a default. Identity and
/// generated columns are left out; other nullable or defaulted columns take their default.
struct Seeder: Sendable {
    let table: TableInfo
    let intent: TableIntent
    /// Column → SQL value the matrix decides (a row's group, a member's user and role).
    var fixed: [String: String]
    /// Parent rows the table's foreign keys need.
    let parents: ParentPlan

    init(table: TableInfo, intent: TableIntent, fixed: [String: String] = [:]) {
        self.table = table
        self.intent = intent
        self.fixed = fixed
        parents = ParentPlan(table: table, intent: intent, fixed: fixed)
    }

    /// Why rows cannot be made without help, or nil.
    var problem: String? {
        if intent.owner.isEmpty { return otherColumnsProblem }
        guard let owner = table.column(intent.owner) else {
            return
                "owner column '\(intent.owner)' does not exist in \(table.qualifiedName) (columns: \(table.columns.map(\.name).joined(separator: ", ")))"
        }
        if !owner.writable { return "owner column '\(owner.name)' is generated or an identity column" }
        if !intent.ownerThrough.isEmpty, parents.problem == nil, parents.root[owner.name] == nil {
            return
                "owner column '\(owner.name)' has no foreign key to \(intent.ownerThrough): 'owner … through' follows one"
        }
        return otherColumnsProblem
    }

    var otherColumnsProblem: String? {
        for s in intent.seeds where table.column(s.column) == nil {
            return "seed column '\(s.column)' does not exist in \(table.qualifiedName)"
        }
        if let p = parents.problem { return p }
        for c in table.columns
        where needsValue(c) && !declared(c) && c.name != intent.owner && parents.root[c.name] == nil && !c.userDefault
            && fixed[c.name] == nil
        {
            if let ref = c.references, !ref.hasPrefix("auth.users(") {
                return
                    "column \(c.name) references \(ref), which rlskit cannot fill: declare 'seed \(c.name) = <expression>' in the access file"
            }
            if Seeder.value(for: c, n: 0) == nil {
                return
                    "no automatic value for column \(c.name) of type \(c.type): declare 'seed \(c.name) = <expression>' in the access file"
            }
        }
        return nil
    }

    func declared(_ c: TableInfo.ColumnInfo) -> Bool { intent.seeds.contains { $0.column == c.name } }
    func needsValue(_ c: TableInfo.ColumnInfo) -> Bool { c.writable && c.notNull && !c.hasDefault }

    /// Column list and value expressions of one row owned by `owner`.
    func row(owner: String, n: Int) -> (columns: [String], values: [String]) {
        var cols: [String] = []
        var vals: [String] = []
        for c in table.columns where c.writable || fixed[c.name] != nil {
            let value: String?
            if let f = fixed[c.name] {
                value = f
            } else if c.name == intent.owner && intent.ownerThrough.isEmpty {
                value = SQL.literal(owner) + "::" + c.type
            } else if let s = intent.seeds.first(where: { $0.column == c.name }) {
                value = s.expression.replacingOccurrences(of: "{owner}", with: owner).replacingOccurrences(
                    of: "{n}", with: String(n))
            } else if let p = parents.root[c.name] {
                value = parents.value(p, c, owner: owner, n: n)
            } else if c.userDefault {
                // `default auth.uid()` is NULL for service_role, which seeds: the owner, as the API would give.
                value = SQL.literal(owner) + "::" + c.type
            } else if needsValue(c) {
                value =
                    c.references?.hasPrefix("auth.users(") == true
                    ? SQL.literal(owner) + "::" + c.type : Seeder.derived(c, checks: table.checks[c.name] ?? [], n: n)
            } else {
                value = nil
            }
            if let value {
                cols.append(SQL.ident(c.name))
                vals.append(value)
            }
        }
        return (cols, vals)
    }

    func insert(owner: String, n: Int, returning: Bool = false) -> String {
        let r = row(owner: owner, n: n)
        return
            "insert into \(table.sqlName)" + InsertSQL.values(r.columns, r.values, overriding: overriding)
            + (returning ? " returning *" : "")
    }

    /// A fixed value for an identity column needs OVERRIDING SYSTEM VALUE.
    var overriding: String {
        table.columns.contains { $0.identity == "a" && fixed[$0.name] != nil } ? " overriding system value" : ""
    }

    /// A value of the column's type, different for each n (so unique columns stay unique).
    static func value(for c: TableInfo.ColumnInfo, n: Int) -> String? {
        let cast = "::" + c.type
        switch c.category {
        case "S": return SQL.literal("rlskit-\(n)") + cast
        case "N": return "\(n + 1)" + cast
        case "B": return "true"
        case "D":
            switch c.typeName {
            case "date": return "current_date + \(n)"
            case "time", "timetz": return "'12:00'" + cast
            case "interval": return "interval '\(n + 1) seconds'"
            default: return "now() + interval '\(n) microseconds'"
            }
        case "E": return c.enumLabel.map { SQL.literal($0) + cast }
        case "A": return "'{}'" + cast
        case "I": return "'10.0.0.\(n % 250 + 1)'" + cast
        case "V": return "B'1'" + cast
        default:
            switch c.typeName {
            case "uuid": return "gen_random_uuid()"
            case "json", "jsonb": return "'{}'" + cast
            case "bytea": return "'\\x00'::bytea"
            default: return nil
            }
        }
    }

    /// `value(for:n:)`, or where check constraints on the column reject it, the first of the
    /// type's other values (enum labels, false) and the checks' own literals (strings for string
    /// types, numbers ±1 for numeric ones) that every check accepts, as PostgreSQL evaluates
    /// them; none → the plain value (the insert then fails naming the constraint).
    static func derived(_ c: TableInfo.ColumnInfo, checks: [String], n: Int) -> String? {
        guard let plain = value(for: c, n: n) else { return nil }
        guard !checks.isEmpty else { return plain }
        var candidates = [plain]
        if c.category == "E" { candidates += c.enumLabels.map { SQL.literal($0) + "::" + c.type } }
        if c.category == "B" { candidates.append("false") }
        for check in checks {
            let s = Array(check.unicodeScalars)
            for tok in SQLLexer.tokens(s) {
                let text = String(String.UnicodeScalarView(s[tok.start..<tok.end]))
                if tok.kind == .string, c.category == "S", text.first == "'", text.count >= 2 {
                    let inner = text.dropFirst().dropLast().replacingOccurrences(of: "''", with: "'")
                    candidates.append(SQL.literal(inner) + "::" + c.type)
                } else if tok.kind == .number, c.category == "N", let x = Decimal(string: text) {
                    candidates += [x, x + 1, x - 1].map { "(\($0))::" + c.type }
                }
            }
        }
        let tests = checks.map { "(" + substitute(c.name, in: $0) + ")" }.joined(separator: " and ")
        let rows = candidates.map { "(\($0))" }.joined(separator: ", ")
        return "coalesce((select s.v from (values \(rows)) s(v) where \(tests) limit 1), \(plain))"
    }

    /// The check's expression with the column replaced by `s.v` (names after `.` or `::`, and
    /// function names, left alone).
    static func substitute(_ column: String, in expr: String) -> String {
        let s = Array(expr.unicodeScalars)
        let toks = SQLLexer.tokens(s).filter { !$0.isTrivia }
        func text(_ t: SQLToken) -> String { String(String.UnicodeScalarView(s[t.start..<t.end])) }
        var out = ""
        var at = 0
        for (i, t) in toks.enumerated() {
            let name = t.kind == .word ? text(t).lowercased() : t.kind == .quotedName ? text(t) : nil
            guard let name, name == column || name == SQL.ident(column) else { continue }
            if t.kind == .word && SQL.ident(column) != column { continue }
            if i > 0, toks[i - 1].kind == .punctuation, [".", "::"].contains(text(toks[i - 1])) { continue }
            if i + 1 < toks.count, text(toks[i + 1]) == "(" || text(toks[i + 1]) == "." { continue }
            out += String(String.UnicodeScalarView(s[at..<t.start])) + "s.v"
            at = t.end
        }
        return out + String(String.UnicodeScalarView(s[at...]))
    }
}
