import Foundation

/// Accepted findings: a text file, one `<fingerprint> # <reason>` per line. Blank lines and
/// lines starting with `#` are comments. An entry without a reason is refused: a baseline is
/// a record of decisions, not a mute button.
public struct Baseline: Sendable {
    public var reasons: [String: String]

    public init(reasons: [String: String] = [:]) { self.reasons = reasons }

    /// Reads and checks a baseline file; every mistake is one `file:line: …` message.
    public static func load(path: String) throws -> Baseline {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw ConfigurationError("cannot read baseline \(path): no such file")
        }
        if let why = ProjectFiles.refusal(path) { throw ConfigurationError("cannot read baseline \(path): \(why)") }
        guard !isDir.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(
                "cannot read baseline \(path): \(isDir.boolValue ? "it is a directory" : "permission denied")")
        }
        guard let text = TextFile.decode(data) else {
            throw ConfigurationError("\(path): baseline is not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws -> Baseline {
        var reasons: [String: String] = [:]
        for (i, raw) in TextFile.lines(text).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let at = "\(file):\(i + 1)"
            let parts = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let fp = parts[0].trimmingCharacters(in: .whitespaces)
            guard fp.count == 16, fp.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                throw ConfigurationError(
                    "\(at): expected '<16 hex digit fingerprint> # reason', got '\(String(line.prefix(60)))'")
            }
            let reason = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            guard !reason.isEmpty else {
                throw ConfigurationError(
                    "\(at): baseline entry \(fp) has no reason; write '\(fp) # why this finding is accepted'")
            }
            if reasons[fp] != nil { throw ConfigurationError("\(at): fingerprint \(fp) is listed twice") }
            reasons[fp] = reason
        }
        return Baseline(reasons: reasons)
    }

    /// Splits findings into reported and suppressed; also returns entries that matched nothing.
    public func apply(_ findings: [Finding]) -> (reported: [Finding], suppressed: [(Finding, String)], unused: [String])
    {
        var reported: [Finding] = []
        var suppressed: [(Finding, String)] = []
        var used = Set<String>()
        for f in findings {
            if let reason = reasons[f.fingerprint] {
                suppressed.append((f, reason))
                used.insert(f.fingerprint)
            } else {
                reported.append(f)
            }
        }
        return (reported, suppressed, reasons.keys.filter { !used.contains($0) }.sorted())
    }
}
