/// Where a project setting came from, for the summary and for messages.
public enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    /// The caller gave it; the label is how the caller names it (the CLI: its option).
    case given(String)
    /// A project file said it: config.toml, or access files (their paths, joined).
    case file(String)
    /// The database said it (PostgREST's `pgrst.db_schemas`).
    case database(String)
    /// Nobody said it: the platform's default.
    case platformDefault

    public var description: String {
        switch self {
        case .given(let label), .file(let label), .database(let label): label
        case .platformDefault: "default"
        }
    }
}

/// A setting's value and where it came from.
public struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
    public var value: Value
    public var source: SettingSource
    public init(_ value: Value, from source: SettingSource) {
        self.value = value
        self.source = source
    }
}
