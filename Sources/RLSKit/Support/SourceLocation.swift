/// A place in a user's file, printed as `file:line[:column]` (1-based).
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int?

    public init(file: String, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { column.map { "\(file):\(line):\($0)" } ?? "\(file):\(line)" }
}
