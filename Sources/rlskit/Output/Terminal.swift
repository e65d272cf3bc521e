import CStdio
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
    func dim(_ t: String) -> String { paint(t, "2") }
}

/// Writes one error line to standard error (what the user caused, never a stack trace).
/// Newlines inside a message are folded, so a failure is always one line.
func printError(_ message: String) {
    let line = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
        separator: " ")
    printNote("rlskit: " + line)
}

/// Writes a line to standard error after what is already on standard output, so the two
/// stay in order when both go to one log.
func printNote(_ line: String) {
    printErrRaw(line + "\n")
}

/// Standard error, no newline added.
func printErrRaw(_ text: String, as kind: OutputKind = .text) {
    fflush(nil)
    writeAll(STDERR_FILENO, Output.safe(text, as: kind))
}

/// One line to standard output.
func say(_ line: String) {
    writeOut(line + "\n")
}

/// Writes to standard output through the same buffer as `print`.
func writeOut(_ text: String, as kind: OutputKind = .text) {
    print(Output.safe(text, as: kind), terminator: "")
}

/// rlskit's own terminal control sequence (the progress line's "clear line"), written as is.
func writeControl(_ sequence: String) {
    fflush(nil)
    writeAll(STDERR_FILENO, sequence)
}

/// Flushes standard output; false when anything written to it was lost (disk full, closed pipe).
func flushOutput() -> Bool {
    rlskit_stdout_failed() == 0
}

private func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return }
        bytes = bytes.dropFirst(n)
    }
}
