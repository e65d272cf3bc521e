/// GitHub Actions workflow commands (`::error title=…::message`), one line each.
enum GitHubAnnotations {
    /// "error", "warning" or "notice".
    static func line(level: String, title: String, message: String, at location: SourceLocation? = nil)
        -> String
    {
        let place = location.map { "file=\(escapeProperty($0.file)),line=\($0.line)," } ?? ""
        return "::\(level) \(place)title=\(escapeProperty(title))::\(escapeData(message))"
    }

    /// The runner's own escapes for line breaks and `%`; every other character a log must not
    /// see raw (terminal escapes, bidi controls, `##[`) as `TextEscape.line` writes it.
    static func escapeData(_ s: String) -> String {
        let scalars = Array(s.unicodeScalars)
        var out = ""
        for (i, c) in scalars.enumerated() {
            switch c {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default:
                if TextEscape.isUnsafe(c) || TextEscape.oldCommand(scalars, at: i) {
                    out += TextEscape.visible(c)
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
