/// One small wrong version of the security surface: the statements that make it and the exact
/// statements that put the original back.
public struct Mutant: Sendable {
    public enum Status: String, Sendable {
        case killed, survived, equivalent, error
    }

    /// The class of mistake (`using-true`, `drop-conjunct` …), stable for machines.
    public var kind: String
    /// `schema.table` as reports name it (a function's `schema.name(arguments)`).
    public var table: String
    /// The policy's name; nil for a table's RLS switch or grants.
    public var policy: String?
    /// What was changed, for people: "USING replaced by true".
    public var mutation: String
    var apply: [String]
    var undo: [String]
    /// Known to behave as the original before anything runs (and why).
    var equivalentBecause: String?
    /// The policy as the catalog had it, compared after applying to find an unchanged mutant.
    var original: MutationCatalog.Policy?
    /// What a killing test must do, for the suggestion.
    var hint: KillHint

    /// Where the policy (or table) was created in the migrations.
    public var location: SourceLocation?
    public var status: Status = .survived
    /// The first failing test: `suite › name (file:line)`.
    public var killedBy: String?
    /// For an equivalent mutant the reason; for an error the failure.
    public var note: String?
    /// An access-file block that would kill a surviving mutant.
    public var suggestion: String?
    /// The same test as pgTAP (in the style of the project's own pgTAP files).
    public var pgtapSuggestion: String?
}

/// What the mutant lets happen that the original did not: the basis of a suggested test.
struct KillHint: Sendable {
    enum Effect: Sendable {
        /// A user reaches another user's rows with this command.
        case otherUsersRows(command: String)
        /// anon can do the command.
        case anonymous(command: String)
        /// Everything the policies and grants hold back.
        case everything
        /// Anyone may call the function with its check gone.
        case function(DefinerFunction)
        /// `role` may use the command on columns its column grant left out.
        case columns(command: String, role: String, columns: [String])
    }
    var effect: Effect
    /// The mutant is in WITH CHECK: the row written is what goes unchecked.
    var newRow = false
    /// The table's owner column, when the policy compares one with the caller.
    var ownerColumn: String?
}

extension Mutant {
    /// The function a `drop-caller-check` mutant changes.
    var function: DefinerFunction? { if case .function(let f) = hint.effect { f } else { nil } }
}
