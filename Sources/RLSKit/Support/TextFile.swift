import Foundation

/// Text files as editors write them. Swift treats "\r\n" as one Character, so
/// `split(separator: "\n")` never splits a CRLF file; and a UTF-8 byte order mark would
/// otherwise reach the parser (or the server) as an invisible first character.
@_spi(CLI) public enum TextFile {
    /// UTF-8 text without a leading byte order mark; nil when the bytes are not UTF-8.
    public static func decode(_ data: Data) -> String? {
        String(validating: data, as: UTF8.self).map(withoutBOM)
    }

    static func withoutBOM(_ text: String) -> String {
        text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
    }

    /// Why a line cannot be used: a NUL byte, which libpq would cut the text at and PostgreSQL
    /// refuses. Checked where a file is read, so the error names its line.
    static func nulProblem(_ line: Substring) -> String? {
        guard let i = line.utf8.firstIndex(of: 0) else { return nil }
        let column = line.unicodeScalars[..<i].count + 1
        return "contains a NUL byte (column \(column)), which PostgreSQL cannot accept: remove it"
    }

    /// Lines ending in "\n" or "\r\n", without their endings (and without a byte order mark).
    public static func lines(_ text: String) -> [Substring] {
        Substring(withoutBOM(text)).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }
}
