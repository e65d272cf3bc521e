import Foundation
import Postgres

/// Proves ERROR findings where rlskit may write and roll back (`check`): for each lint with an
/// exploit it signs up the users the exploit needs, seeds a row someone else owns (as the
/// harness seeds, as service_role where it may insert), sends the request as the attacker with
/// PostgREST's settings, records the rows read or written and rolls everything back. An ERROR
/// it cannot prove is lowered to WARN, and the proof says why.
public enum Prover {
    public struct Result: Sendable {
        public var findings: [Finding]
        /// Sequences the exploits advanced (put back only on a database rlskit owns).
        public var sequences: [SequenceAdvance]
    }

    /// How long one statement of an exploit may run.
    static let timeout = "5s"

    /// The exploit of a lint, or nil when none is written yet.
    static func strategy(_ lint: String) -> ((Finding, ProofContext) throws -> Proof)? {
        switch lint {
        case Lint.rlsDisabledInPublic.name, Lint.policyExistsRLSDisabled.name, Lint.sensitiveColumnsExposed.name:
            { try $1.tableWithoutRLS($0) }
        case Lint.authUidIsNullDisjunct.name: { try $1.policy($0, attacker: .anon) }
        case Lint.policySelfComparison.name, Lint.uncorrelatedPolicySubquery.name,
            Lint.policySubqueryColumnShadowed.name:
            { try $1.policy($0, attacker: .stranger) }
        case Lint.withCheckWeakerThanUsing.name: { try $1.handOver($0) }
        case Lint.anonSecurityDefinerFunctionExecutable.name: { try $1.function($0) }
        case Lint.authUsersExposed.name: { try $1.authUsersView($0) }
        case Lint.nullDefeatedGuard.name: { try $1.guardedFunction($0) }
        case Lint.storageWriteWithoutOwnerCheck.name: { try $1.storageWrite($0) }
        case Lint.securityDefinerView.name: { try $1.definerView($0) }
        default: nil
        }
    }

    static let noExploit = "no exploit written for this lint yet"

    /// Each ERROR finding proven or lowered to WARN; the others as they were.
    /// The exploits run on `target` (on a throwaway server, the project's own `postgres`, as the
    /// harness seeds); sequences are read, and put back where rlskit owns the database, on
    /// `admin` (default: `target`).
    /// With `api` (a throwaway server's login as authenticator), they run there when it connects.
    public static func prove(
        _ findings: [Finding], on target: ConnectionString, admin: ConnectionString? = nil,
        api: ConnectionString? = nil, ownsDatabase: Bool
    ) throws -> Result {
        guard findings.contains(where: { $0.level == .error }) else { return Result(findings: findings, sequences: []) }
        let conn = try api.flatMap { try? PostgresConnection($0) } ?? PostgresConnection(target)
        defer { conn.close() }
        let adminConn = try admin.map { try PostgresConnection($0) } ?? conn
        defer { if admin != nil { adminConn.close() } }
        let guardian = try SequenceGuard.capture(adminConn)
        var out = findings
        do {
            let context = try ProofContext(conn)
            for i in out.indices where out[i].level == .error {
                var proof = try prove(out[i], context)
                if proof.outcome != .proven {
                    proof.demotedFrom = .error
                    out[i].level = .warn
                }
                out[i].proof = proof
            }
        } catch {
            if ownsDatabase { _ = try? guardian.finish(adminConn, owned: true) }
            throw error
        }
        return Result(findings: out.sortedForReport(), sequences: try guardian.finish(adminConn, owned: ownsDatabase))
    }

    /// One exploit in its own transaction, always rolled back.
    static func prove(_ f: Finding, _ context: ProofContext) throws -> Proof {
        guard let strategy = strategy(f.lint) else { return .notProven(noExploit) }
        let conn = context.conn
        try conn.query("BEGIN")
        defer { _ = try? conn.query("ROLLBACK") }
        try conn.query("select set_config('statement_timeout', \(SQL.literal(timeout)), true)")
        do {
            return try strategy(f, context)
        } catch let e as PostgresError {
            if e.isConnectionFailure { throw e }
            return .notProven(
                e.sqlState == "57014"
                    ? "the exploit did not end within \(timeout)" : "preparing the exploit failed: \(e.message)")
        } catch let e as ProofContext.Unprovable {
            return .notProven(e.reason)
        }
    }
}
