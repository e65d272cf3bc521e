import Foundation
import Postgres

/// Which policies decided a failed matrix check. PostgreSQL ORs a command's permissive policies
/// and ANDs its restrictive ones, for the roles the actor has; each applicable expression is
/// evaluated for the check's row as the same actor (same role, same claims, so current_user,
/// auth.uid() and the RLS of tables the expression reads are as in the check), on a copy of the
/// row in a temporary table, inside a savepoint that is rolled back. Not reproduced: BEFORE
/// triggers and generated columns of the new row, defaults that read current_user.
struct Blame {
    let conn: PostgresConnection

    struct Policy {
        var name: String
        var permissive: Bool
        var command: String
        var using: String?
        var check: String?
    }

    /// One set of policies a statement must pass: a command's, on the old or the new row.
    struct Gate {
        var command: String
        var newRow: Bool
        var primary: Bool
    }

    struct Verdict {
        var gate: Gate
        var allowing: [String] = []
        var blocking: [String] = []
        var permissive: [String] = []
        var passes: Bool { !allowing.isEmpty && blocking.isEmpty }
    }

    static func gates(_ row: CheckRow) -> [Gate] {
        let select = { (new: Bool) in Gate(command: "SELECT", newRow: new, primary: false) }
        switch row.command {
        case "SELECT": return [Gate(command: "SELECT", newRow: false, primary: true)]
        case "DELETE": return [Gate(command: "DELETE", newRow: false, primary: true), select(false)]
        case "UPDATE":
            return [
                Gate(command: "UPDATE", newRow: false, primary: true),
                Gate(command: "UPDATE", newRow: true, primary: true),
                select(false), select(true),
            ]
        default:
            var g = [Gate(command: "INSERT", newRow: true, primary: true)]
            if row.upsert {
                g += [
                    Gate(command: "UPDATE", newRow: false, primary: true),
                    Gate(command: "UPDATE", newRow: true, primary: true),
                ]
            }
            return g + (row.returning ? [select(true)] : [])
        }
    }

    /// One line per deciding gate, or nil when there is nothing to say (no row, a privilege error).
    func explain(_ check: PolicyCheck, leak: Bool) throws(PostgresError) -> [String]? {
        guard let row = check.row, check.statements.count >= 2 else { return nil }
        do { try conn.query("savepoint rlskit_blame") } catch { return nil }
        defer { _ = try? conn.query("rollback to savepoint rlskit_blame") }
        do {
            return try evaluate(check, row, leak: leak)
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            return ["which policy decided it is unknown: evaluating the policies failed (\(e.message))"]
        } catch { return nil }
    }

    func evaluate(_ check: PolicyCheck, _ row: CheckRow, leak: Bool) throws -> [String] {
        let on = try conn.query(Catalog.rowSecuritySQL("$1"), [row.table]).rows.first?.values[0]
        if on == "f" { return ["row level security is off on \(row.table): no policy applies"] }
        let policies = try conn.query(Catalog.rolePoliciesSQL, [row.table, row.role]).rows.map { r in
            Policy(
                name: r.values[0] ?? "", permissive: r.values[1] == "t", command: r.values[2] ?? "*",
                using: r.values[3], check: r.values[4])
        }
        // The copies of the row are written after impersonating: leave the read-only mode of reads out.
        let imp = check.statements[check.statements.count - 2].replacingOccurrences(
            of: ", set_config('transaction_read_only', 'on', true)", with: "")
        for s in check.statements.dropLast(2) { try conn.query(s) }
        // The actor's claims, so defaults such as auth.uid() fill the new row as in the check.
        try conn.query(imp)
        try conn.query("select set_config('role', null, true)")
        if let existing = row.existing {
            try conn.query(
                "create temp table rlskit_old on commit drop as select * from \(row.table) where \(existing) limit 1")
            if try conn.query("select count(*) from pg_temp.rlskit_old").rows.first?.values[0] == "0" {
                return []
            }
        }
        if let ins = row.insert {
            try conn.query(
                "create temp table rlskit_new (like \(row.table) including defaults including identity including generated) on commit drop"
            )
            try conn.query(
                "insert into pg_temp.rlskit_new" + InsertSQL.values(ins.columns, ins.values)
            )
        } else if row.existing != nil {
            try conn.query("create temp table rlskit_new on commit drop as select * from pg_temp.rlskit_old")
        }
        if !row.assignments.isEmpty, row.insert == nil {
            try conn.query(
                "update pg_temp.rlskit_new set "
                    + row.assignments.map { "\($0.column) = \($0.value)" }.joined(separator: ", "))
        }
        let tables = (row.existing != nil ? ["pg_temp.rlskit_old"] : []) + ["pg_temp.rlskit_new"]
        try conn.query("grant select on \(tables.joined(separator: ", ")) to \(SQL.ident(row.role))")
        try conn.query(imp)
        let verdicts = try Self.gates(row).map { try judge($0, row, policies) }
        return Self.words(verdicts, row, leak: leak)
    }

    func judge(_ gate: Gate, _ row: CheckRow, _ policies: [Policy]) throws -> Verdict {
        let code = ["SELECT": "r", "INSERT": "a", "UPDATE": "w", "DELETE": "d"][gate.command] ?? "*"
        var v = Verdict(gate: gate)
        for p in policies where p.command == code || p.command == "*" {
            // A new row is held to WITH CHECK, or to USING where the policy has none (not for INSERT-only).
            let useCheck = gate.newRow && gate.command != "SELECT"
            guard let expr = useCheck ? (p.check ?? p.using) : p.using else { continue }
            let kind = useCheck && p.check != nil ? "WITH CHECK" : "USING"
            let table = gate.newRow ? "pg_temp.rlskit_new" : "pg_temp.rlskit_old"
            let holds = try holds(expr, table, alias: SQL.ident(row.name))
            let shown = "\(SQL.display(p.name, always: true))"
            let what = "\(kind) \(Self.short(expr))"
            if p.permissive {
                v.permissive.append("\(shown) \(what)")
                if holds == true { v.allowing.append("\(shown) (permissive, \(what))") }
            } else if holds != true {
                v.blocking.append("\(shown) (\(what))" + (holds == nil ? " (its evaluation failed)" : ""))
            }
        }
        return v
    }

    /// The expression's value for the row; nil when it cannot be evaluated (counts as false).
    func holds(_ expr: String, _ table: String, alias: String) throws -> Bool? {
        try conn.query("savepoint rlskit_blame_p")
        do {
            let r = try conn.query("select coalesce((\(expr))::boolean, false) from \(table) as \(alias)")
            try conn.query("release savepoint rlskit_blame_p")
            return r.rows.first?.values[0] == "t"
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            try conn.query("rollback to savepoint rlskit_blame_p")
            return nil
        }
    }

    static func words(_ verdicts: [Verdict], _ row: CheckRow, leak: Bool) -> [String] {
        func place(_ g: Gate) -> String {
            let which = g.newRow ? "new row" : "row"
            if g.command == "SELECT", row.command != "SELECT" {
                return "\(row.upsert ? "upsert" : row.command) needs the \(which) visible to SELECT: "
            }
            if row.upsert, g.command == "UPDATE" { return "overwrite (UPDATE), \(which): " }
            return g.newRow && g.command != "INSERT" ? "new row: " : ""
        }
        if leak {
            let lines = verdicts.filter { $0.gate.primary && $0.passes }.map {
                place($0.gate) + $0.allowing.map { "allowed by policy \($0)" }.joined(separator: ", ")
            }
            return lines.isEmpty ? ["no policy allows it when evaluated alone: look for a trigger or rule"] : lines
        }
        guard let v = verdicts.first(where: { !$0.passes }) else {
            return ["the policies allow it: something else refused it (a trigger, a constraint, a privilege)"]
        }
        if let b = v.blocking.first { return [place(v.gate) + "blocked by restrictive policy \(b)"] }
        let none = "blocked: no permissive \(v.gate.command) policy for \(row.role)"
        if v.permissive.isEmpty { return [place(v.gate) + none] }
        let row = v.gate.newRow ? "the new row" : "the row"
        return [place(v.gate) + none + " matches \(row) (" + v.permissive.joined(separator: "; ") + ")"]
    }

    static func short(_ expr: String) -> String {
        let one = expr.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return one.count > 100 ? one.prefix(97) + "…" : one
    }
}

extension UnitRunner {
    /// Names the responsible policies of each failed matrix check (only those: a passing run pays nothing).
    func blame(_ outcomes: inout [TestOutcome], _ checks: [PolicyCheck]) throws {
        for i in outcomes.indices where outcomes[i].status == .failed && checks[i].row != nil {
            guard let allowed = outcomes[i].intendedAllowed, !(outcomes[i].got ?? "").hasPrefix("denied by privilege")
            else { continue }
            outcomes[i].keys = try Blame(conn: conn).keys(checks[i])
            guard let lines = try Blame(conn: conn).explain(checks[i], leak: !allowed), !lines.isEmpty else { continue }
            outcomes[i].policies = lines
            outcomes[i].message = (outcomes[i].message ?? "") + " — " + lines.joined(separator: "; ")
        }
    }
}
