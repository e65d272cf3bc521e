import Foundation
import Postgres

/// What `rlskit test` runs: access files and scenarios for the harness, pgTAP files for the
/// pgTAP runner.
public struct TestSuite: Sendable {
    public var harness: HarnessInput
    public var pgtap: [(path: String, display: String)]
    /// How the built-in supabase-test-helpers behave for the pgTAP files.
    public var pgtapHelpers = PgTAPHelperSet.basejump

    public init(harness: HarnessInput = HarnessInput(), pgtap: [(path: String, display: String)] = []) {
        self.harness = harness
        self.pgtap = pgtap
    }

    public var isEmpty: Bool { harness.isEmpty && pgtap.isEmpty }

    /// The tables, membership tables and buckets the access files declare (`public.notes`, `bucket avatars`).
    public var declaredBlocks: Set<String> {
        Set(
            harness.access.flatMap {
                $0.tables.map(\.qualifiedName) + $0.memberships.map(\.qualifiedName)
                    + $0.buckets.map { "bucket " + $0.id }
            })
    }

    /// Reads PATHs: `*.rls` and `*.scenario` for the harness, `*.sql` and `*.pg` for pgTAP;
    /// folders are searched for both. A mistake in a file is an `InputError` with its line.
    public static func load(_ paths: [String]) throws -> TestSuite {
        let (ours, pgtap) = try route(paths)
        return TestSuite(
            harness: try HarnessLoader.load(ours), pgtap: pgtap.isEmpty ? [] : try PgTAPRunner.discover(pgtap))
    }

    /// The built-in schema's own tests (`sql/tests`, compiled in).
    public static func builtIn() throws -> TestSuite {
        TestSuite(harness: try HarnessLoader.builtIn())
    }

    /// Splits PATHs between the harness and the pgTAP runner.
    static func route(_ paths: [String]) throws -> (ours: [String], pgtap: [String]) {
        var ours: [String] = []
        var pgtap: [String] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else {
                throw ConfigurationError("\(p): no such file or folder")
            }
            let ext = (p as NSString).pathExtension.lowercased()
            if !isDir.boolValue {
                if HarnessLoader.extensions.contains(ext) {
                    ours.append(p)
                } else if PgTAPRunner.extensions.contains(ext) {
                    pgtap.append(p)
                } else {
                    throw ConfigurationError("\(p): not a test file: use *.rls, *.scenario, or pgTAP *.sql / *.pg")
                }
                continue
            }
            let exts = Set(
                (fm.enumerator(atPath: p)?.allObjects as? [String] ?? []).map {
                    ($0 as NSString).pathExtension.lowercased()
                })
            if !exts.isDisjoint(with: HarnessLoader.extensions) { ours.append(p) }
            if !exts.isDisjoint(with: PgTAPRunner.extensions) { pgtap.append(p) }
        }
        return (ours, pgtap)
    }
}

/// A test run's report and the mistakes found in files while they ran (a pgTAP file whose
/// statements break rlskit's transaction, say): those make the run a usage error (exit 2).
public struct PolicyTestResult: Sendable {
    public var report: TestReport
    public var problems: [InputError]
}

/// The harness and the pgTAP runner on one database, leaving no trace: everything is rolled
/// back, and sequences are put back only where rlskit owns the database (see SequenceGuard).
public enum PolicyTests {
    public static func run(
        _ suite: TestSuite, options: HarnessOptions = HarnessOptions(), on target: ConnectionString,
        ownsDatabase: Bool
    ) throws -> PolicyTestResult {
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        let guardian = try SequenceGuard.capture(conn)
        var report = TestReport()
        var problems: [InputError] = []
        do {
            if !suite.harness.isEmpty {
                var options = options
                if let project = options.pgtapConnection, options.apiConnection == nil {
                    options.apiConnection = Sandbox.apiConnection(admin: target, project: project)
                    options.storageConnection = Sandbox.apiConnection(
                        Sandbox.storageLogin, admin: target, project: project)
                }
                report = try Harness.run(suite.harness, options: options, on: options.pgtapConnection ?? target)
            }
            if !suite.pgtap.isEmpty, !(options.stopAtFirstFailure && report.outcomes.contains(where: \.isFailure)) {
                let r = try PgTAPRunner.run(
                    suite.pgtap, options: PgTAPOptions(jobs: options.jobs, helpers: suite.pgtapHelpers),
                    on: options.pgtapConnection ?? target)
                report.outcomes += r.report.outcomes
                report.notes += r.report.notes
                problems = r.files.flatMap(\.malformed)
            }
        } catch let e as PostgresError where e.isConnectionFailure && e.connectTarget == nil {
            if ownsDatabase { _ = try? guardian.finish(conn, owned: true) }
            throw ConnectionLostError(database: target.label, during: "running the tests", error: e)
        } catch {
            if ownsDatabase { _ = try? guardian.finish(conn, owned: true) }
            throw error
        }
        report.sequences = try guardian.finish(conn, owned: ownsDatabase)
        if let note = SequenceGuard.note(report.sequences) { report.notes.append(note) }
        return PolicyTestResult(report: report, problems: problems)
    }
}
