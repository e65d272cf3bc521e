import Foundation
import Postgres

/// The attack on tables no access file declares: their intent inferred as `rlskit init` drafts
/// it (`AccessDraft.infer`), run through the harness (rolled back), and every check that went
/// through where that intent says no becomes a proven finding naming the assumption it rests on.
public enum InferredAttack {
    public struct Result: Sendable {
        public var findings: [Finding] = []
        /// The failed checks as test outcomes (`rlskit test --inferred`), suite `inferred <table>`.
        public var outcomes: [TestOutcome] = []
        /// Tables attacked, and the lines saying what was left out and why.
        public var tables: [String] = []
        public var notes: [String] = []
        public var sequences: [SequenceAdvance] = []
        /// Tables and buckets whose checks ran (the others could not be seeded or planned).
        public var covered = 0

        /// `3 tables and 1 bucket`: what was attacked.
        public var attacked: String {
            let buckets = tables.count { $0.hasPrefix("bucket ") }
            let n = tables.count - buckets
            return "\(n) table\(n == 1 ? "" : "s")"
                + (buckets == 0 ? "" : " and \(buckets) bucket\(buckets == 1 ? "" : "s")")
        }
    }

    static let lintName = "inferred_intent_violated"

    /// The SARIF rule of its findings.
    static let sarifRule = SARIF.Rule(
        id: lintName, name: "A check of inferred intent went through",
        shortDescription: "A check of inferred intent went through",
        fullDescription:
            "With no access file declaring a table's or bucket's intent, rlskit infers it as `rlskit init` drafts it (owners, groups, roles, catalogs) and attacks it in a rolled-back transaction: a read or write that went through where that intent says no is reported with its proof (the request, the role, the rows' keys) and the assumption it rests on.",
        help:
            "If it must not go through, fix the policies and confirm the intent in an access file (`rlskit init` drafts it); if it may, declare the table's intent there to silence this.",
        level: "error", tags: ["security"], helpUri: Lint.repositoryURL + "/blob/main/docs/check.md")

    /// `declared`: tables, membership tables and buckets the access files name (`public.notes`,
    /// `bucket avatars`).
    public static func run(
        schemas: [String], declared: Set<String>, options: HarnessOptions, on target: ConnectionString,
        ownsDatabase: Bool
    ) throws -> Result {
        let (tables, storage, buckets) = try {
            let conn = try PostgresConnection(target)
            defer { conn.close() }
            let (read, storage, buckets, _, _) = try AccessDraft.read(conn, schemas: schemas)
            return (try AccessDraft.withCheckedRoles(conn, read), storage, buckets)
        }()
        var result = Result()
        var declared = declared
        var inference: AccessDraft.Inference
        var run: PolicyTestResult
        var hookNote: String?
        // A guess the planner refuses leaves its block out, said once; the others are still attacked.
        while true {
            inference = AccessDraft.infer(
                tables: tables, buckets: buckets, storagePolicies: storage, declared: declared)
            guard !inference.isEmpty else {
                result.notes += inference.skipped
                return result
            }
            do {
                (run, hookNote) = try attack(
                    inference, options: options, schemas: schemas, on: target, ownsDatabase: ownsDatabase)
            } catch let e as InputError {
                // Each round leaves out one more block, so this ends.
                if e.location.file == AccessDraft.inferredPath,
                    let block = AccessDraft.blockName(at: e.location.line, in: inference.text),
                    !declared.contains(block)
                {
                    result.notes.append("inferred intent of \(block) not attacked: \(e.message)")
                    declared.insert(block)
                    continue
                }
                result.notes.append("inferred intent not attacked: \(e.message)")
                return result
            } catch let e as ConfigurationError {
                result.notes.append("inferred intent not attacked: \(e.message)")
                return result
            }
            break
        }
        result.notes += inference.skipped
        if let hookNote { result.notes.append(hookNote) }
        result.sequences = run.report.sequences
        if let note = SequenceGuard.note(run.report.sequences) { result.notes.append(note + " (the inferred attack)") }
        result.tables = inference.assumptions.keys.sorted()
        let outcomes = run.report.outcomes
        var uncovered = Set<String>()
        for o in outcomes where o.name == "not covered" {
            uncovered.insert(o.suite)
            result.notes.append("inferred intent of \(o.suite) not attacked: " + (o.message ?? "not covered"))
        }
        result.covered = result.tables.filter { !uncovered.contains($0) }.count
        // One finding per table, operation and API role: `B reads A's row` adds nothing to `A reads B's row`.
        var firstOf: [String: Int] = [:]
        // A table private by its policies' names is read by no stranger, anon included.
        for o in outcomes
        where holes(
            o, among: outcomes,
            sensitive: inference.sensitive[o.suite] != nil || inference.privateByName[o.suite] != nil)
        {
            let assumptions = inference.assumptions[o.suite] ?? []
            var shown = o
            shown.suite = "inferred " + o.suite
            shown.location = nil
            shown.message =
                (o.message ?? o.name)
                + (o.keys.map { $0.isEmpty ? "" : " (rows: \($0.joined(separator: "; ")))" } ?? "")
                + "; " + assumptions.joined(separator: "; ")
            result.outcomes.append(shown)
            let key = [o.suite, o.operation ?? "", o.role ?? ""].joined(separator: "\u{1F}")
            if let i = firstOf[key] {
                result.findings[i].also(o.name)
            } else {
                firstOf[key] = result.findings.count
                let table = tables.first { $0.qualifiedName == o.suite }
                var policies: [String: [String]] = [:]
                for p in table?.policies ?? [] { policies[p.name] = [p.using, p.check].compactMap { $0 } }
                result.findings.append(
                    Finding(
                        inferred: o, assumptions: assumptions, owner: inference.owner[o.suite],
                        tenant: inference.tenant[o.suite],
                        columns: Set((table?.columns ?? []).map { $0.name.lowercased() }), policies: policies))
            }
        }
        return result
    }

    /// Runs the inferred file; a hook the tests never needed may not exist, so a refused hook
    /// is dropped once and the attack runs with the claims as given.
    static func attack(
        _ inference: AccessDraft.Inference, options: HarnessOptions, schemas: [String], on target: ConnectionString,
        ownsDatabase: Bool
    ) throws -> (run: PolicyTestResult, note: String?) {
        let file: AccessFile
        do {
            file = try AccessFile.parse(inference.text, path: AccessDraft.inferredPath)
        }
        var input = HarnessInput()
        input.access = [file]
        var options = options
        options.strict = false
        options.allowUntested = true
        options.exposedSchemas = schemas
        do {
            let run = try PolicyTests.run(
                TestSuite(harness: input), options: options, on: target, ownsDatabase: ownsDatabase)
            return (run, nil)
        } catch let e as ConfigurationError where options.accessTokenHook != nil {
            options.accessTokenHook = nil
            let run = try PolicyTests.run(
                TestSuite(harness: input), options: options, on: target, ownsDatabase: ownsDatabase)
            return (run, "inferred attack run without the custom access-token hook: \(e.message)")
        }
    }

    /// The USING and WITH CHECK expressions a blame quotes, as the server printed them; a
    /// shortened one ("…") is read as far as it goes.
    static func expressions(_ blame: String) -> [String] {
        var out: [String] = []
        var rest = Substring(blame)
        while let r = rest.range(of: #"(USING|WITH CHECK) \("#, options: .regularExpression) {
            let open = rest.index(before: r.upperBound)
            var depth = 0
            var end: Substring.Index?
            for i in rest[open...].indices {
                if rest[i] == "(" { depth += 1 } else if rest[i] == ")" { depth -= 1 }
                if depth == 0 {
                    end = i
                    break
                }
                if rest[i] == "…" {
                    end = rest.index(before: i)
                    break
                }
            }
            guard let end else { break }
            out.append(String(rest[open...end]))
            rest = rest[rest.index(after: end)...]
        }
        return out
    }

    /// A disjunct of an allowing policy's USING or WITH CHECK that does not name `owner` and is
    /// not a constant (`user_workspace_role(...) in ('owner', 'admin')`), rendered; nil if none.
    static func otherBranch(_ exprs: [String], owner: String) -> String? {
        typealias E = PolicyExpression
        for expr in exprs {
            var nodes = E.Parser.parse(expr)
            while nodes.count == 1, case .group(false, let inner) = nodes[0] { nodes = inner }
            let parts = E.Scan.split(nodes, at: "OR")
            guard parts.count > 1 else { continue }
            for part in parts {
                let text = E.Render.nodes(part)
                if rowColumns(part, table: nil, columns: [owner]).contains(owner.lowercased()) { continue }
                if E.isConstant(text) || text.lowercased() == "true" { continue }
                return text.count > 160 ? String(text.prefix(157)) + "…" : text
            }
        }
        return nil
    }

    /// The columns of `columns` an expression names, unqualified or qualified with `table` (with
    /// any qualifier when `table` is nil).
    static func rowColumns(_ nodes: [PolicyExpression.Node], table: String?, columns: Set<String>) -> Set<String> {
        let tokens = PolicyExpression.Scan.tokens(nodes)
        var out = Set<String>()
        for (i, t) in tokens.enumerated() {
            guard case .ident(let n, _) = t, columns.contains(n.lowercased()) else { continue }
            var qualifier: String?
            if i >= 2, tokens[i - 1] == .dot, case .ident(let q, _) = tokens[i - 2] { qualifier = q.lowercased() }
            if qualifier == nil || table == nil || qualifier == table?.lowercased() { out.insert(n.lowercased()) }
        }
        return out
    }

    /// Every allowing expression ties the row to the caller (it names the row's columns and the
    /// caller, or a helper) but none names the column the inferred intent rests on: the author
    /// keys these rows differently (by document, by project) than the inference guessed. The
    /// columns it names, or nil. `team_id is not null` ties the row to no one: nil.
    static func keyedOtherwise(_ exprs: [String], keys: Set<String>, table: String, columns: Set<String>) -> [String]? {
        guard !exprs.isEmpty, !keys.isEmpty else { return nil }
        var named = Set<String>()
        for e in exprs {
            let parsed = PolicyExpression(e)
            let used = rowColumns(parsed.nodes, table: table, columns: columns)
            guard !used.isEmpty, used.isDisjoint(with: keys), parsed.hasIdentity || parsed.callsHelper else {
                return nil
            }
            named.formUnion(used)
        }
        return named.sorted()
    }

    /// The full USING and WITH CHECK of the policies a blame names as allowing (`policies`: the
    /// table's, by name); where it names none of them, what the blame quotes.
    static func allowingExpressions(_ blame: String, policies: [String: [String]]) -> [String] {
        var names: [String] = []
        var rest = Substring(blame)
        while let r = rest.range(of: #"allowed by policy "[^"]+""#, options: .regularExpression) {
            names.append(String(rest[r].dropFirst("allowed by policy \"".count).dropLast()))
            rest = rest[r.upperBound...]
        }
        let found = names.flatMap { policies[$0] ?? [] }
        return found.isEmpty ? expressions(blame) : found
    }

    /// A check that went through where the inferred intent says no, unless the table is public
    /// by design: a row anon reads too, of a table without tokens, keys, secrets or emails.
    static func holes(_ o: TestOutcome, among all: [TestOutcome], sensitive: Bool) -> Bool {
        guard o.status == .failed, o.intendedAllowed == false else { return false }
        // Function calls are the audit's (0028, 0029, proven on their own), not a table's.
        if o.suite == FunctionProbeRequest.suite { return false }
        // A private bucket read by anon is a hole whatever the table rule says.
        if o.operation == "select" && !sensitive && !o.suite.hasPrefix("bucket ") {
            let anonReads = all.contains {
                $0.suite == o.suite && $0.actor == "anon" && $0.operation == "select" && $0.got == o.got
            }
            if anonReads { return false }
        }
        return true
    }

    /// The name of the policy that allowed a check, when every policy that did is unconditional
    /// (`USING true`, `WITH CHECK true`) and named for the role it applies to ("Authenticated users
    /// can delete residences", `auth_select_requests`), none for some of them (admins, owners).
    static func statedByName(_ blame: String) -> String? {
        let clause = #"allowed by policy "([^"]+)" \(permissive, (USING|WITH CHECK) true\)"#
        let all = blame.components(separatedBy: "allowed by policy ").count - 1
        var names: [String] = []
        var rest = Substring(blame)
        while let r = rest.range(of: clause, options: .regularExpression) {
            let m = rest[r]
            if let q1 = m.firstIndex(of: "\""), let q2 = m[m.index(after: q1)...].firstIndex(of: "\"") {
                names.append(String(m[m.index(after: q1)..<q2]))
            }
            rest = rest[r.upperBound...]
        }
        guard all > 0, names.count == all else { return nil }
        // Names that name the role itself; "for anyone" says less (who may insert is not whose row).
        let everyone = ["authenticated", "auth_", "signed in", "signed-in", "logged in"]
        let some = [
            "admin", "owner", "own ", "own_", "self", "same", "staff", "member", "manager", "moderator", "their",
            "creator", "author",
        ]
        for n in names {
            let l = n.lowercased()
            guard everyone.contains(where: l.contains), !some.contains(where: l.contains) else { return nil }
        }
        return names.first
    }

    /// The Storage API request a bucket check stands for (`GET /storage/v1/object/list/docs`).
    static func storageRequest(_ o: TestOutcome, bucket: String) -> String {
        let b = bucket.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? bucket
        switch o.operation {
        case "select": return "POST /storage/v1/object/list/\(b)"
        case "insert": return "POST /storage/v1/object/\(b)/…"
        case "delete": return "DELETE /storage/v1/object/\(b)"
        default:
            return o.name.contains("moves")
                ? "POST /storage/v1/object/move" : "PUT /storage/v1/object/\(b)/… (x-upsert)"
        }
    }

    /// Rows read or written, from what the check observed (`1 row (2)`, `3 rows affected`).
    static func rows(_ got: String) -> Int {
        if got.hasPrefix("1 row ("), let n = Int(got.dropFirst(7).prefix { $0.isNumber }) { return n }
        return Int(got.prefix { $0.isNumber }) ?? 1
    }
}

extension Finding {
    /// A hole the inferred attack proved: the check as the proof, the assumptions in the detail.
    init(
        inferred o: TestOutcome, assumptions: [String], owner: String? = nil, tenant: String? = nil,
        columns: Set<String> = [], policies: [String: [String]] = [:]
    ) {
        let bucket = o.suite.hasPrefix("bucket ") ? String(o.suite.dropFirst(7)) : nil
        let name = o.suite.split(separator: ".", maxSplits: 1).map(String.init)
        let object =
            bucket.map { AuditObject(schema: "storage", name: $0, kind: "bucket") }
            ?? AuditObject(
                schema: name.count == 2 ? name[0] : "", name: name.count == 2 ? name[1] : o.suite, kind: "table")
        lint = InferredAttack.lintName
        lintId = "inferred"
        title = "A check of inferred intent went through"
        level = .error
        categories = [.security]
        self.object = object
        detail =
            "\(o.name) (expected \(o.expected ?? "denied"), got \(o.got ?? "?")), "
            + assumptions.joined(separator: "; ")
        remediation =
            "If it must not go through, fix the policies and confirm the intent in an access file (`rlskit init` drafts it); if it may, declare the table's intent there to silence this"
        metadata = ["check": o.name, "assumptions": assumptions.joined(separator: "; ")]
        if let p = o.policies, !p.isEmpty { metadata["policies"] = p.joined(separator: "; ") }
        fingerprint = Finding.fingerprint(lint: lint, object: object, key: o.name)
        var proof = Proof(outcome: .proven)
        proof.actor = o.actor ?? ""
        proof.role = o.role ?? ""
        if let bucket {
            proof.request = InferredAttack.storageRequest(o, bucket: bucket)
        } else {
            let table = object.name
            proof.request =
                APIRequest.method(o.operation ?? "") + " /rest/v1/"
                + (table.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? table)
                + (object.schema == "public" || object.schema.isEmpty
                    ? "" : " (\(o.operation == "select" ? "Accept" : "Content")-Profile: \(object.schema))")
        }
        proof.sql = o.sql ?? ""
        proof.effect = o.operation == "select" ? "read" : "wrote"
        proof.rows = InferredAttack.rows(o.got ?? "")
        proof.keys = Array((o.keys ?? []).prefix(Proof.keyLimit))
        self.proof = proof
        // The inference guessed; the policy's author said. An unconditional policy named for
        // every signed-in user is the design, or a hole only when sign-ups are open: WARN.
        // A's own rows hang off parents rlskit made as A (a workspace A owns): a policy branch
        // for the parent's admins lets A through as one. That branch is the author's, not a hole.
        let allowing = InferredAttack.allowingExpressions(metadata["policies"] ?? "", policies: policies)
        if o.actor == "A", let owner,
            let branch = InferredAttack.otherBranch(allowing, owner: owner)
        {
            level = .warn
            metadata["branch"] = branch
            detail +=
                "; allowed through another branch of the policy (`\(branch)`), which A meets as the owner of the parent rows rlskit seeded for its rows: listed at WARN (declare the intent to decide)"
        } else if let keyed = InferredAttack.keyedOtherwise(
            allowing,
            keys: Set([owner, tenant].compactMap { $0?.lowercased() }), table: object.name, columns: columns)
        {
            level = .warn
            metadata["keyedBy"] = keyed.joined(separator: ", ")
            detail +=
                "; the policy that allows it ties the row through \(keyed.map { "`\($0)`" }.joined(separator: ", ")), not the column assumed: the author keys these rows otherwise, so this is listed at WARN (declare the intent to decide)"
        } else if let stated = InferredAttack.statedByName(metadata["policies"] ?? "") {
            level = .warn
            metadata["stated"] = stated
            detail +=
                "; the policy that allows it, \"\(stated)\", says by name it is meant for everyone it applies to:"
                + " listed at WARN (with sign-ups open, anyone can sign in and be one)"
        }
    }

    /// Another check of the same table, operation and role that went through too.
    mutating func also(_ check: String) {
        metadata["also", default: ""] += (metadata["also"] == nil ? "" : "; ") + check
        let assumptions = metadata["assumptions"].map { ", " + $0 } ?? ""
        let head = detail.dropLast(assumptions.count)
        detail = (metadata["also"] == check ? head + "; also \(check)" : head + ", \(check)") + assumptions
    }
}
