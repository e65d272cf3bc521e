/// GitHub Actions workflow commands (`::error title=…::message`), one line each.
enum GitHubAnnotations {
    /// "error", "warning" or "notice".
    public static func line(level: String, title: String, message: String, at location: SourceLocation? = nil)
        -> String
    {
        let place = location.map { "file=\(escapeProperty($0.file)),line=\($0.line)," } ?? ""
        return "::\(level) \(place)title=\(escapeProperty(title))::\(escapeData(message))"
    }

    /// The runner's own escapes for line breaks and `%`; every other character a log must not
    /// see raw (terminal escapes, bidi controls) as `\u{…}`.
    static func escapeData(_ s: String) -> String {
        TextEscape.escape(s, ["%": "%25", "\r": "%0D", "\n": "%0A"]) {
            TextEscape.isUnsafe($0) ? TextEscape.visible($0) : nil
        }
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
