import Foundation

/// Output helpers: colour only on a terminal and never when NO_COLOR is set.
struct Terminal: Sendable {
    var color: Bool

    static func detect(fd: Int32 = 1) -> Terminal {
        let env = ProcessInfo.processInfo.environment
        return Terminal(color: isatty(fd) == 1 && (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb")
    }

    func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    func red(_ t: String) -> String { paint(t, "31") }
    func green(_ t: String) -> String { paint(t, "32") }
    func yellow(_ t: String) -> String { paint(t, "33") }
    func bold(_ t: String) -> String { paint(t, "1") }
    func dim(_ t: String) -> String { paint(t, "2") }
}

/// Writes to standard error, one line.
func printError(_ message: String) {
    FileHandle.standardError.write(Data(("rlskit: " + message + "\n").utf8))
}
