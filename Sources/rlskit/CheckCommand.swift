import Foundation
import Postgres
import RLSKit

enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "provision a database and prove its policies (throwaway server by default)",
        details: """
        With no database given, starts a throwaway PostgreSQL in a temporary directory, runs
        every phase against it and removes it afterwards, also on failure or Ctrl-C.
        """,
        options: [
            DatabaseTarget.option,
            .option("dir", "DIR", "Migrations to apply (default: sql/migrations, else supabase/migrations, else built in)."),
            .flag("keep", "Leave the throwaway database running afterwards and print how to connect."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let target = try DatabaseTarget.resolve(args) { print(term.dim($0)) }
        defer { target.stop() }
        let conn = try target.connect()
        let version: String = try conn.query("select current_setting('server_version') as v").rows[0].decode("v")
        print("connected to \(target.connection.description) (PostgreSQL \(version))")
        var options = Migrator.Options()
        options.source = args.value("dir").map { .directory($0) } ?? .defaultSource()
        let started = Date()
        let applied = try Migrator(conn, options: options) { print("  " + $0) }.run()
        print(term.bold("apply: ") + "\(applied.applied.count) migration(s) applied from \(options.source) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        // Test hook: keeps the server up so tests can interrupt a running check.
        if let hold = ProcessInfo.processInfo.environment["RLSKIT_TEST_HOLD_SECONDS"].flatMap(Double.init) {
            Thread.sleep(forTimeInterval: hold)
        }
        if args.flag("keep"), let cluster = target.cluster {
            let pid = cluster.detach()
            print("kept the throwaway database; connect with: psql \"\(cluster.connectionString.raw)\"")
            print("stop it with: kill \(pid) && rm -rf \(cluster.directory)")
        }
        return .success
    }
}
