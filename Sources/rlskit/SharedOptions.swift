/// Options several commands take, written once so that they read the same everywhere.
extension OptionSpec {
    /// What the harness takes (`test`, `check`).
    static let harness: [OptionSpec] = [
        .option("jobs", "N", "Spread the checks over N connections (default 1)."),
        .flag("strict", "Fail on RLS tables without declared intent."),
        .flag("allow-untested", "Skip, instead of fail, declared tables and buckets that cannot be tested."),
        .flag("allow-side-effects", "Run even where triggers could make real network calls (http, pg_net)."),
        .option(
            "access-token-hook", "SCHEMA.FUNCTION",
            "Run every test user's claims through this custom access-token hook (default: config.toml's)."),
    ]

    /// What the audit takes (`audit`, `check`).
    static let audit: [OptionSpec] = [
        .option(
            "exposed-schemas", "LIST",
            "Comma-separated schemas the API serves (default: config.toml's [api] schemas, else pgrst.db_schemas, else public)."
        ),
        .option("fail-on", "LEVEL", "error (default), warn or info: fail when a finding is at or above it."),
        .option("baseline", "FILE", "Accepted findings: '<fingerprint> # reason' per line."),
    ]

    static let output = OptionSpec.option("output", "FILE", "Write the report to FILE instead of standard output.")
}
