import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// The database a command works on: `--database-url`, else the environment, else a
/// throwaway local cluster that lives as long as the command.
struct DatabaseTarget: Sendable {
    static let option = OptionSpec.option(
        "database-url", "URL",
        "Database to use (postgresql://… or key=value). Default: DATABASE_URL / PG* environment, else a throwaway local server."
    )

    let connection: ConnectionString
    let cluster: LocalCluster?
    /// On the throwaway server `connection` is its admin (supabase_admin), which installs the
    /// stand-in and plays the platform's services in the harness (GoTrue signs users up, the API
    /// switches roles), none of which is `postgres` on Supabase either; the project's own SQL
    /// (migrations, seeds, pgTAP files) runs as this `postgres`, not a superuser, as there.
    var project: ConnectionString? { cluster?.connectionString }

    var isThrowaway: Bool { cluster != nil }

    /// `--database-url` given several times, and/or `--database-urls FILE` (one per line, `#`
    /// comments): several databases checked in parallel. Nil when only one database is meant.
    static let manyOption = OptionSpec.option(
        "database-urls", "FILE", "A file of database URLs, one per line (# comments): check them all, in parallel.")
    static let repeatableOption: OptionSpec = {
        var o = option
        o.repeatable = true
        o.help += " Repeat it to check several databases in parallel."
        return o
    }()
    /// For commands that read an existing database and never start an empty one.
    static let existingOption = OptionSpec.option(
        "database-url", "URL",
        "Database to read (postgresql://… or key=value). Default: DATABASE_URL / PG* environment; required.")
    static let existingRepeatableOption: OptionSpec = {
        var o = existingOption
        o.repeatable = true
        o.help += " Repeat it to audit several databases in parallel."
        return o
    }()

    static func resolveMany(_ args: ParsedArguments) throws -> [DatabaseTarget]? {
        var urls = args.all("database-url")
        if let file = args.value("database-urls") {
            guard let data = FileManager.default.contents(atPath: file), let text = TextFile.decode(data) else {
                throw ConfigurationError("\(file): cannot read the file of database URLs")
            }
            for (n, line) in TextFile.lines(text).enumerated() {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.isEmpty || t.hasPrefix("#") { continue }
                do { _ = try ConnectionString(t).options() } catch {
                    throw ConfigurationError(
                        "\(file):\(n + 1): not a valid connection string; expected postgresql://user@host:port/db")
                }
                urls.append(t)
            }
            if urls.isEmpty { throw ConfigurationError("\(file): no database URLs in the file") }
        }
        guard urls.count > 1 || args.value("database-urls") != nil else { return nil }
        if urls.contains(where: { $0.isEmpty }) {
            throw ConfigurationError("--database-url is empty: give a postgresql:// URL or a key=value string")
        }
        return try urls.map { url in
            let c = ConnectionString(url)
            do { _ = try c.options() } catch let e as PostgresError {
                throw ConfigurationError(
                    "--database-url is not a valid connection string (\(e.message.replacingOccurrences(of: "invalid connection string: ", with: ""))): expected postgresql://user@host:port/db"
                )
            }
            return DatabaseTarget(connection: c, cluster: nil)
        }
    }

    static func resolve(_ args: ParsedArguments, log: (String) -> Void) throws -> DatabaseTarget {
        if let url = args.value("database-url") {
            guard !url.isEmpty else {
                throw ConfigurationError("--database-url is empty: give a postgresql:// URL or a key=value string")
            }
            let c = ConnectionString(url)
            do { _ = try c.options() } catch let e as PostgresError {
                throw ConfigurationError(
                    "--database-url is not a valid connection string (\(e.message.replacingOccurrences(of: "invalid connection string: ", with: ""))): expected postgresql://user@host:port/db"
                )
            }
            return DatabaseTarget(connection: c, cluster: nil)
        }
        if ConnectionString.environmentNamesDatabase() {
            let c = ConnectionString.fromEnvironment()
            if !c.raw.isEmpty {
                do { _ = try c.options() } catch let e as PostgresError {
                    throw ConfigurationError(
                        "DATABASE_URL is not a valid connection string (\(e.message.replacingOccurrences(of: "invalid connection string: ", with: ""))): expected postgresql://user@host:port/db"
                    )
                }
            }
            return DatabaseTarget(connection: c, cluster: nil)
        }
        let started = Date()
        let options = try Sandbox.options(PlatformExtensions.clusterOptions(for: migrationFiles(args)))
        let cluster = try LocalCluster(options: options)
        if let note = cluster.extensionNote { printNote("note: " + note) }
        log("started a throwaway PostgreSQL in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        return DatabaseTarget(connection: cluster.adminConnectionString, cluster: cluster)
    }

    static func migrationFiles(_ args: ParsedArguments) -> [SQLFile] {
        let source = args.value("dir").map { MigrationSource.directory($0) } ?? .defaultSource()
        return (try? source.load()) ?? []
    }

    /// The libraries a throwaway server for these migrations preloads (pg_cron where one names it).
    static func preload(_ args: ParsedArguments) -> [String] {
        PlatformExtensions.clusterOptions(for: migrationFiles(args)).preloadLibraries
    }

    func connect() throws -> PostgresConnection { try PostgresConnection(connection) }

    func stop() { cluster?.stop() }

    /// A throwaway database starts empty: give it the stand-in, the project's migrations and its
    /// seed files so tests have something to run against; never rlskit's example schema by
    /// accident. Returns the grants regime modelled there (nil for a given database).
    @discardableResult
    func provisionIfThrowaway(_ project: Project, log: (String) -> Void) throws -> GrantsRegime? {
        guard isThrowaway else { return nil }
        let source = project.migrations
        var options = try project.migrator(throwaway: true, projectConnection: self.project)
        options.platformGrantsInstalled = cluster?.isPrepared ?? false
        let regime = options.grants!
        if let warning = project.supabase?.seedWarning { log(warning) }
        let r = try Migrator.run(source, options: options, on: connection)
        if source == .none {
            log("no sql/migrations or supabase/migrations here: the throwaway database has the Supabase stand-in only")
        } else {
            let seeded = r.seeded.isEmpty ? "" : " and seed " + r.seeded.joined(separator: ", ")
            log(
                "provisioned the throwaway database: stand-in and \(r.applied.count) migration(s) from \(source)\(seeded); \(regime)"
            )
        }
        return regime
    }
}
