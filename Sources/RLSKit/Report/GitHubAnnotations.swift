/// GitHub Actions workflow commands (`::error title=…::message`), one line each.
enum GitHubAnnotations {
    /// "error", "warning" or "notice".
    public static func line(level: String, title: String, message: String, at location: SourceLocation? = nil)
        -> String
    {
        let place = location.map { "file=\(escapeProperty($0.file)),line=\($0.line)," } ?? ""
        return "::\(level) \(place)title=\(escapeProperty(title))::\(escapeData(message))"
    }

    static func escapeData(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
