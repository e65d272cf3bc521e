/// A mistake in a file the user wrote: one line, `file:line: what, what to do`.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }
    public var description: String { "\(location): \(message)" }
}

/// A reason a pgTAP file cannot run: the same shape.
typealias ScriptProblem = InputError
