import Foundation

/// Text files as editors write them. Swift treats "\r\n" as one Character, so
/// `split(separator: "\n")` never splits a CRLF file; and a UTF-8 byte order mark would
/// otherwise reach the parser (or the server) as an invisible first character.
@_spi(CLI) public enum TextFile {
    /// UTF-8 text without a leading byte order mark; nil when the bytes are not UTF-8.
    public static func decode(_ data: Data) -> String? {
        String(validating: data, as: UTF8.self).map(withoutBOM)
    }

    public static func withoutBOM(_ text: String) -> String {
        text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
    }

    /// Lines ending in "\n" or "\r\n", without their endings (and without a byte order mark).
    public static func lines(_ text: String) -> [Substring] {
        Substring(withoutBOM(text)).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }
}
