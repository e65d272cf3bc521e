@_spi(CLI) import RLSKit

/// `--fail-on` and `--baseline`, read once for `audit` and `check`.
struct AuditGroup {
    var failOn: FindingLevel
    var baseline: Baseline

    init(_ args: ParsedArguments) throws {
        failOn = try Self.level(args.value("fail-on") ?? "error")
        baseline = try args.value("baseline").map(Baseline.load) ?? Baseline()
    }

    static func level(_ text: String) throws -> FindingLevel {
        switch text.lowercased() {
        case "error": return .error
        case "warn", "warning": return .warn
        case "info": return .info
        default: throw ConfigurationError("unknown --fail-on '\(text)': use error, warn or info")
        }
    }
}

/// `--dir` and `--builtin`: the migrations `check` and `apply` work on.
enum MigrationsOption {
    static func source(_ args: ParsedArguments) throws -> MigrationSource {
        if args.flag("builtin"), args.value("dir") != nil {
            throw ConfigurationError("--builtin and --dir both name the migrations: give one")
        }
        return args.value("dir").map { .directory($0) } ?? (args.flag("builtin") ? .builtIn : .projectSource())
    }
}
