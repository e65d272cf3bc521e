import Foundation
import Postgres
@_spi(CLI) import RLSKit

enum ApplyCommand {
    static let spec = CommandSpec(
        name: "apply",
        summary: "apply migrations to a database (tracked, checksummed, locked)",
        details: """
            Applies every <digits>_<name>.sql file of the directory in name order (other .sql files
            are skipped, as the Supabase CLI skips them), each from a clean session (RESET ALL) in
            one transaction with its ledger row (rlskit.migrations); BEGIN … COMMIT blocks inside
            a file run in that transaction. Installs the Supabase stand-in first where auth/storage
            are missing. On a throwaway server the seed files (supabase/seed.sql, or config.toml's
            [db.seed]) run afterwards and config.toml's buckets are created.
            Concurrent runs wait on an advisory lock, then find nothing left to do.
            A file whose first lines include '-- rlskit:no-transaction' runs statement by statement
            outside a transaction (for CREATE INDEX CONCURRENTLY and the like).
            Default directory: sql/migrations, else supabase/migrations; --builtin applies rlskit's
            example schema.
            """,
        options: [
            DatabaseTarget.option,
            .option("dir", "DIR", "Directory of migrations (<digits>_<name>.sql, applied in name order)."),
            .flag("builtin", "Apply rlskit's built-in example schema."),
            .flag("dry-run", "Print the plan (applied, pending, changed) and change nothing."),
            .flag("allow-changed", "Go on when an applied file has changed (it is not re-applied)."),
            .flag("no-stand-in", "Never install the Supabase stand-in."),
            ProjectOptions.grants,
            .option("lock-timeout", "DURATION", "How long to wait for a concurrent apply (default 120s)."),
            .option("ddl-lock-timeout", "DURATION", "lock_timeout inside migrations (default 5s)."),
            .option("statement-timeout", "DURATION", "statement_timeout inside migrations (default 10m)."),
            .option(
                "storage-url", "URL", "Storage API base URL for the avatar cleanup, e.g. https://<ref>.supabase.co."),
            .option(
                "service-key-env", "NAME",
                "Environment variable holding the service role key (never pass the key itself)."),
        ])

    static func options(_ args: ParsedArguments) throws -> Migrator.Options {
        var o = Migrator.Options()
        o.dryRun = args.flag("dry-run")
        o.allowChanged = args.flag("allow-changed")
        o.standIn = !args.flag("no-stand-in")
        if let v = args.value("lock-timeout") { o.lockTimeout = try duration(v, "lock-timeout") }
        if let v = args.value("ddl-lock-timeout") { o.ddlLockTimeout = try duration(v, "ddl-lock-timeout") }
        if let v = args.value("statement-timeout") { o.statementTimeout = try duration(v, "statement-timeout") }
        return o
    }

    /// The storage settings requested, validated before anything connects.
    static func storageSettings(_ args: ParsedArguments) throws -> (url: String, key: String, env: String)? {
        let given = args.value("storage-url")
        let env = args.value("service-key-env")
        guard given != nil || env != nil else { return nil }
        guard let given, let env else {
            throw ConfigurationError("--storage-url and --service-key-env go together")
        }
        let url = try StorageSettings.validate(url: given)
        guard let key = ProcessInfo.processInfo.environment[env], !key.isEmpty else {
            throw ConfigurationError("environment variable \(env) (from --service-key-env) is not set or empty")
        }
        Output.hide(key)
        return (url, key, env)
    }

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let source = try MigrationsOption.source(args)
        // Never rlskit's example schema into someone's database by accident.
        if source == .none {
            throw ConfigurationError(
                "nothing to apply: no sql/migrations or supabase/migrations in this folder; give --dir DIR (or --builtin for rlskit's example schema)"
            )
        }
        var opts = try options(args)
        let storage = try storageSettings(args)
        let project = try ProjectOptions(args).resolve(migrations: source)
        let target = try DatabaseTarget.resolve(args) { say(term.dim($0)) }
        defer { target.stop() }
        // As `supabase db reset` on a fresh database; a real one is seeded as `db push` does: not.
        if target.isThrowaway {
            opts = try project.migrator(opts, throwaway: true, projectConnection: target.project)
            say(term.dim(opts.grants!.description))
            if let warning = project.supabase?.seedWarning { say(warning) }
        }
        say("applying \(source) to \((target.project ?? target.connection).label)")
        _ = try Migrator.run(source, options: opts, on: target.connection) { say($0) }
        if let storage, !opts.dryRun {
            let store = try StorageSettings.write(try target.connect(), url: storage.url, serviceKey: storage.key)
            say("storage API settings written to \(store.rawValue) (key from $\(storage.env))")
        }
        if target.isThrowaway {
            say(term.dim("(that was a throwaway database; give --database-url to provision a real one)"))
        }
        return .success
    }
}

/// `30`, `30s`, `500ms`, `2m` → seconds, from 1 ms to 24 days (PostgreSQL's timeout range;
/// 0 would mean "wait forever" there, so it is refused).
func duration(_ text: String, _ option: String) throws -> Double {
    let t = text.trimmingCharacters(in: .whitespaces).lowercased()
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    var seconds: Double?
    for (suffix, scale) in units where t.hasSuffix(suffix) {
        if let v = Double(t.dropLast(suffix.count)) {
            seconds = v * scale
            break
        }
    }
    if seconds == nil, let v = Double(t) { seconds = v }
    guard let s = seconds, s.isFinite else {
        throw ConfigurationError("--\(option) '\(text)' is not a duration; use e.g. 30s, 500ms or 2m")
    }
    guard s >= 0.001, s <= 2_147_483.647 else {
        throw ConfigurationError("--\(option) '\(text)' is out of range; give 1ms to 24 days")
    }
    return s
}
