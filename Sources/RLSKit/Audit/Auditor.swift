import Foundation
import Postgres
import Synchronization

/// What an audit run found, and what it looked at.
public struct AuditResult: Sendable {
    public var findings: [Finding]
    public var exposed: ExposedSchemas
    /// Exposed schemas that do not exist in the database.
    public var missingSchemas: [String]
    /// Lints that could not run (their query failed): name → message. Reported, never hidden.
    public var failedLints: [String: String]
    public var lintsRun: [Lint]
    public var seconds: Double
}

/// What an audit looks at beyond the catalog itself.
public struct AuditOptions: Sendable {
    /// The schemas the Data API serves, with where that was said; nil reads PostgREST's
    /// `pgrst.db_schemas`, else `public`.
    public var exposed: ExposedSchemas?
    public init(exposed: ExposedSchemas? = nil) { self.exposed = exposed }
    public init(exposedSchemas: [String]) { exposed = ExposedSchemas(names: exposedSchemas, origin: .given("given")) }
}

public enum Auditor {
    /// Audits the database at `target` with `lints`, in one read-only snapshot.
    public static func run(
        _ lints: [Lint] = LintRegistry.all, options: AuditOptions = AuditOptions(),
        on target: ConnectionString
    ) throws -> AuditResult {
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        return try run(
            conn, lints: lints, exposed: options.exposed, helper: target)
    }

    /// Runs `lints` with `exposedSchemas` as given (tests, benchmarks).
    static func run(
        _ conn: PostgresConnection, lints: [Lint] = LintRegistry.all, exposedSchemas: [String]
    ) throws -> AuditResult {
        try run(conn, lints: lints, exposed: AuditOptions(exposedSchemas: exposedSchemas).exposed)
    }

    /// Runs `lints` on one connection: one read-only snapshot, every query in one pipeline.
    /// When `conn` is already in a transaction (tests), that transaction is used as it is.
    ///
    /// With `helper` (the same database's connection string) and a large catalog, the
    /// policies, the costliest query (the server opens every table to deparse them), run on a
    /// second connection that imports the same snapshot, and are parsed on a second thread
    /// while the main connection runs everything else. Below `helperThreshold` policies one
    /// connection is faster.
    static func run(
        _ conn: PostgresConnection, lints: [Lint] = LintRegistry.all,
        exposed given: ExposedSchemas? = nil, helper: ConnectionString? = nil, helperThreshold: Int = 1000
    ) throws -> AuditResult {
        let started = Date()
        let ownTransaction = !conn.inTransaction
        if ownTransaction { try conn.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
        defer { if ownTransaction { _ = try? conn.query("ROLLBACK") } }

        let first = try conn.query("select s.*, \(SidePolicies.countColumns) from (\(ExposedSchemas.query)) s").rows[0]
        let exposed = given ?? ExposedSchemas.detect(from: first)
        var plan = QueryPlan(lints: lints)
        let param = postgresArray(exposed.names)
        var side: [SidePolicies] = []
        if let helper, ownTransaction, plan.removePolicies(),
            (Int(first["policy_count"] ?? "0") ?? 0) >= helperThreshold
        {
            side = try SidePolicies.launch(
                conn, helper: helper, exposed: param, tables: Int(first["policy_tables"] ?? "0") ?? 0)
        } else if helper != nil, plan.hasRemovedPolicies {
            plan.restorePolicies()
        }
        var groups: [[PostgresStatement]] = [
            [PostgresStatement("select nspname from pg_catalog.pg_namespace where nspname = any($1::text[])", [param])]
        ]
        groups += plan.queries.map { [PostgresStatement($0.sql, $0.sql.contains("$1") ? [param] : [])] }
        let outcomes = try conn.pipeline(groups: groups, isolation: .keepSuccesses).map { $0[0] }
        trace("pipeline done", started)

        if let e = outcomes[0].error { throw e }
        let present = Set((outcomes[0].result?.rows ?? []).compactMap { $0["nspname"] })
        // Auditing only schemas that do not exist checks nothing: never pass that silently.
        if present.isEmpty {
            _ = try? SidePolicies.collect(side) { [] }  // let the helpers finish before the snapshot goes
            let names = exposed.names.map { SQL.display($0) }.joined(separator: ", ")
            let plural = exposed.names.count == 1 ? "schema \(names) does" : "schemas \(names) do"
            let fix =
                switch exposed.origin {
                case .given(let label): "name existing schemas in \(label)"
                case .platformDefault: "pass --exposed-schemas with the schemas the data API serves"
                case .file, .database: "fix \(exposed.source), or pass --exposed-schemas"
                }
            throw ConfigurationError(
                "exposed \(plural) not exist in this database (from \(exposed.source)), so the audit would check nothing: \(fix)"
            )
        }
        var catalog = AuditCatalog(exposedSchemas: exposed.names)
        if !side.isEmpty {
            catalog.policies = try SidePolicies.collect(side) {
                try AuditCatalog.policies(try conn.query(CatalogDataset.policies.sql, [param]).rows)
            }
        }
        trace("helpers done", started)
        var findings: [Finding] = []
        var failed: [String: String] = [:]
        var failedDatasets: [CatalogDataset: String] = [:]
        for (query, outcome) in zip(plan.queries, outcomes.dropFirst()) {
            switch (query.source, outcome) {
            case (.lint(let lint), .success(let result)):
                for row in result.rows {
                    do { findings.append(Finding(lint: lint, draft: try standardDraft(row))) } catch {
                        failed[lint.name] = "unexpected row: \(error)"
                    }
                }
            case (.dataset(let d), .success(let result)):
                do { try catalog.load(d, result.rows) } catch { failedDatasets[d] = "\(error)" }
            case (.lint(let lint), .failure(let e)): failed[lint.name] = e.description
            case (.dataset(let d), .failure(let e)): failedDatasets[d] = e.description
            case (.lint(let lint), .skipped): failed[lint.name] = "not run"
            case (.dataset(let d), .skipped): failedDatasets[d] = "not run"
            }
        }
        if plan.readsPlatformTables {
            do { try catalog.loadBuckets(conn) } catch { failedDatasets[.buckets] = "\(error)" }
        }
        for d in plan.followUps where failedDatasets[.policies] == nil {
            do {
                switch d {
                case .selfComparedColumns: try catalog.loadSelfComparedColumns(conn)
                case .policyHelpers: try catalog.loadPolicyHelpers(conn)
                case .insertTargets: try catalog.loadInsertTargets(conn)
                default: break
                }
            } catch { failedDatasets[d] = "\(error)" }
        }
        trace("follow-ups done", started)
        var swiftLints: [(Lint, @Sendable (AuditCatalog) -> [FindingDraft])] = []
        for lint in lints {
            guard case .swift(let needs, let check) = lint.logic else { continue }
            if let missing = needs.first(where: { failedDatasets[$0] != nil }) {
                failed[lint.name] = "catalog query \(missing.rawValue) failed: \(failedDatasets[missing]!)"
                continue
            }
            swiftLints.append((lint, check))
        }
        // The Swift lints only read the catalog: run them on every core.
        let frozen = catalog
        let toRun = swiftLints
        let results = try WorkerPool.run(toRun.count, workers: ProcessInfo.processInfo.activeProcessorCount, open: {}) {
            _, i in
            (toRun[i].1(frozen).map { Finding(lint: toRun[i].0, draft: $0) }, false)
        }
        findings += results.compactMap { $0 }.joined()
        trace("lints done", started)
        defer { trace("sorted", started) }
        // The platform's own objects are its business, whatever schemas the API serves.
        findings.removeAll {
            SchemaLists.managed.contains($0.object.schema) && !isUserPolicyOnPlatformTable($0.object)
                && $0.lint != Lint.platformTableNotRead.name
        }
        return AuditResult(
            findings: deduplicated(findings).sortedForReport(), exposed: exposed,
            missingSchemas: exposed.names.filter { !present.contains($0) },
            failedLints: failed, lintsRun: lints, seconds: Date().timeIntervalSince(started))
    }

    /// Policies the project writes on platform tables (storage objects, realtime messages) and
    /// its buckets: the user's, so audited.
    static func isUserPolicyOnPlatformTable(_ o: AuditObject) -> Bool {
        (o.kind == "policy" && ["storage.objects", "realtime.messages"].contains(o.schema + "." + o.name))
            || (o.kind == "bucket" && o.schema == "storage")
    }

    /// The queries `run` sends, as a psql script (for the benchmark's side-by-side timing).
    public static func script(lints: [Lint] = LintRegistry.all, exposedSchemas: [String]) -> String {
        let literal = "'" + postgresArray(exposedSchemas).replacingOccurrences(of: "'", with: "''") + "'::text[]"
        var out = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;\n"
        out += ExposedSchemas.query + ";\n"
        for q in QueryPlan(lints: lints).queries {
            out += q.sql.replacingOccurrences(of: "$1::text[]", with: literal) + ";\n"
        }
        return out + "ROLLBACK;\n"
    }

    /// Text form of a text[] literal.
    static func postgresArray(_ names: [String]) -> String { names.postgresText ?? "{}" }

    static func standardDraft(_ row: PostgresRow) throws -> FindingDraft {
        var metadata: [String: String] = [:]
        if let json: String = try row.decode("metadata"),
            let obj = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        {
            for (k, v) in obj { metadata[k] = v as? String ?? "\(v)" }
        }
        // A query lists a less serious case lower with `"level": "info"` in its metadata.
        let level: FindingLevel? = metadata.removeValue(forKey: "level") == "info" ? .info : nil
        return FindingDraft(
            object: AuditObject(
                schema: try row.decode("schema"), name: try row.decode("name"),
                kind: try row.decode("kind"), member: try row.decode("member")),
            detail: try row.decode("detail"), metadata: metadata, level: level)
    }

    static let tracing = ProcessInfo.processInfo.environment["RLSKIT_TRACE"] != nil
    static func trace(_ what: String, _ since: Date) {
        if tracing {
            FileHandle.standardError.write(
                Data("trace: \(what) at \(Int(Date().timeIntervalSince(since) * 1000)) ms\n".utf8))
        }
    }

    /// One finding per fingerprint (a lint may see one object through several rows).
    static func deduplicated(_ findings: [Finding]) -> [Finding] {
        var seen = Set<String>()
        return findings.filter { seen.insert($0.fingerprint).inserted }
    }
}

/// The queries of one run: each SQL lint's, plus each dataset the Swift lints need (once).
struct QueryPlan {
    enum Source {
        case lint(Lint)
        case dataset(CatalogDataset)
    }
    var queries: [(source: Source, sql: String)] = []
    /// Datasets read after the pipeline, once the policies are known.
    var followUps: [CatalogDataset] = []
    /// storage.buckets is read after the pipeline, checked first (see `PlatformTable`).
    var readsPlatformTables = false
    private(set) var hasRemovedPolicies = false

    /// Takes the policies dataset out (to run elsewhere); false when the plan has none.
    mutating func removePolicies() -> Bool {
        guard let i = queries.firstIndex(where: { if case .dataset(.policies) = $0.source { true } else { false } })
        else { return false }
        queries.remove(at: i)
        hasRemovedPolicies = true
        return true
    }

    mutating func restorePolicies() {
        queries.insert((.dataset(.policies), CatalogDataset.policies.sql), at: 0)
        hasRemovedPolicies = false
    }

    init(lints: [Lint]) {
        var datasets = Set<CatalogDataset>()
        for lint in lints {
            switch lint.logic {
            case .sql(let sql): queries.append((.lint(lint), sql))
            case .swift(let needs, _): datasets.formUnion(needs)
            }
        }
        for d in CatalogDataset.allCases where datasets.contains(d) && !d.followsPolicies && !d.readsPlatformTable {
            queries.append((.dataset(d), d.sql))
        }
        readsPlatformTables = datasets.contains(.buckets)
        followUps = CatalogDataset.allCases.filter { datasets.contains($0) && $0.followsPolicies }
    }
}
