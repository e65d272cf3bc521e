import CLibPQ

/// Transaction and savepoint helpers that always close what they open.
extension PostgresConnection {
    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws
    /// (the original error is rethrown; a failed ROLLBACK does not mask it).
    @discardableResult
    public func transaction<T>(_ begin: String = "BEGIN", _ body: (PostgresConnection) throws -> T) throws -> T {
        try query(begin)
        let value: T
        do { value = try body(self) } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
        // COMMIT of a failed transaction answers ROLLBACK: the body swallowed an error.
        let tag = try query("COMMIT").commandTag
        guard tag == "COMMIT" else {
            throw PostgresError(
                kind: .client,
                message:
                    "the transaction failed inside the block (an error was caught and ignored), so it was rolled back",
                sqlState: "25P02")
        }
        return value
    }

    /// Runs `body` and always rolls back: for checks that must leave nothing behind.
    @discardableResult
    public func rolledBack<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try query("BEGIN")
        defer { _ = try? query("ROLLBACK") }
        return try body(self)
    }

    /// Runs `body` inside a savepoint of the current transaction: RELEASE when it returns,
    /// ROLLBACK TO (then RELEASE) when it throws, so the outer transaction stays usable.
    @discardableResult
    public func savepoint<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "rlskit_sp_\(savepointDepth)"
        try query("SAVEPOINT \(name)")
        let value: T
        do { value = try body(self) } catch {
            _ = try? query("ROLLBACK TO SAVEPOINT \(name)")
            _ = try? query("RELEASE SAVEPOINT \(name)")
            throw error
        }
        if PQtransactionStatus(handle) == PQTRANS_INERROR {
            // The body swallowed an error: undo it like a throw would, and say so.
            _ = try? query("ROLLBACK TO SAVEPOINT \(name)")
            _ = try? query("RELEASE SAVEPOINT \(name)")
            throw PostgresError(
                kind: .client,
                message:
                    "a statement failed inside the savepoint (an error was caught and ignored), so it was rolled back",
                sqlState: "25P02")
        }
        try query("RELEASE SAVEPOINT \(name)")
        return value
    }
}
