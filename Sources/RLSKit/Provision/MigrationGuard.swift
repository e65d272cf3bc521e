import Postgres

/// What a migration must leave as it found it, checked after the file ran and before its
/// ledger row is written: rlskit's transaction (the same one, still open), the role, and the
/// ledger. Whatever the scanner thought of the file, the server's state decides.
struct MigrationGuard {
    let xid: String?
    let role: String

    /// Taken at the start; `inTransaction` also pins the transaction's id.
    static func start(_ c: PostgresConnection, inTransaction: Bool) throws -> MigrationGuard {
        let row = try c.query(
            "select current_user::text as role, case when $1 then txid_current()::text end as xid", [inTransaction]
        ).rows[0]
        return MigrationGuard(xid: try row.decode("xid"), role: try row.decode("role"))
    }

    func check(_ c: PostgresConnection, _ file: SQLFile, _ statements: [SQLStatement]) throws {
        if xid != nil {
            let same =
                c.transactionState == .active
                ? (try? c.query("select txid_current()::text as xid").rows[0].decode("xid") as String) == xid : false
            guard same else {
                throw ConfigurationError(
                    "\(file.path): the migration ended rlskit's transaction with transaction control rlskit did not see; "
                        + "what ran before it may be committed with no ledger row: check the database, then remove it or add '-- rlskit:no-transaction' as the first line"
                )
            }
        }
        let now: String = try c.query("select current_user::text as role").rows[0].decode("role")
        if now != role {
            throw ConfigurationError(
                "\(Self.at(file, statements, Self.setsRole)): the migration leaves the role switched to \(now) (it ran as \(role)); "
                    + "rlskit records and runs every migration as the role it connected as: remove the SET ROLE, or end the file with RESET ROLE"
            )
        }
        let ledger: Bool = try c.query("select to_regclass('rlskit.migrations') is not null as ok").rows[0].decode("ok")
        if !ledger {
            throw ConfigurationError(
                "\(Self.at(file, statements, Self.dropsLedger)): the migration drops schema rlskit (or its table migrations), "
                    + "where rlskit keeps the ledger: remove that statement")
        }
    }

    /// `file:line` of the first statement matching, else the file.
    static func at(_ file: SQLFile, _ statements: [SQLStatement], _ match: (SQLStatement) -> Bool) -> String {
        statements.first(where: match).map { "\(file.path):\($0.line)" } ?? file.path
    }

    static func setsRole(_ s: SQLStatement) -> Bool {
        let w = SQLScanner.keywords(s.text, count: 3)
        guard w.first == "set" else { return false }
        let rest = w.dropFirst().first == "local" || w.dropFirst().first == "session" ? w.dropFirst(2) : w.dropFirst()
        return rest.first == "role" || rest.first == "authorization"
    }

    static func dropsLedger(_ s: SQLStatement) -> Bool {
        let w = SQLScanner.keywords(s.text, count: 2)
        return w.first == "drop" && (w.last == "schema" || w.last == "table")
            && SQLScanner.keywords(s.text, count: 64, names: true).contains { $0 == "rlskit" || $0 == "\"rlskit\"" }
    }
}
