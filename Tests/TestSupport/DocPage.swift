import Foundation

/// The repository's Markdown pages (README.md, CONTRIBUTING.md, docs/), read by the tests that
/// keep their examples running and their links working. Paths are relative to the repository root.
public enum DocPage {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// A fenced code block: its info string (`sh`, `yaml`, or empty), its text without the
    /// fences, and the line its opening fence is on (from 1).
    public struct CodeBlock: Sendable {
        public var info: String
        public var text: String
        public var line: Int
    }

    /// The page's text.
    public static func read(_ path: String) throws -> String {
        try String(contentsOfFile: Provisioned.repositoryRoot + "/" + path, encoding: .utf8)
    }

    /// Every page: README.md, CONTRIBUTING.md and each `.md` file under docs/, sorted.
    public static func all() throws -> [String] {
        let root = Provisioned.repositoryRoot
        var pages = ["README.md", "CONTRIBUTING.md"]
        let docs = FileManager.default.enumerator(atPath: root + "/docs")?.allObjects as? [String] ?? []
        pages += docs.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.sorted()
        return pages
    }

    /// The page's fenced code blocks, in order.
    public static func codeBlocks(_ path: String) throws -> [CodeBlock] {
        var out: [CodeBlock] = []
        var open: (info: String, indent: Int, line: Int, lines: [String])?
        for (n, raw) in try read(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if var o = open {
                if trimmed.hasPrefix("```") && trimmed.allSatisfy({ $0 == "`" }) {
                    out.append(CodeBlock(info: o.info, text: o.lines.joined(separator: "\n"), line: o.line))
                    open = nil
                } else {
                    o.lines.append(String(line.dropFirst(min(indent, o.indent))))
                    open = o
                }
            } else if trimmed.hasPrefix("```") {
                open = (String(trimmed.dropFirst(3)), indent, n + 1, [])
            }
        }
        return out
    }

    /// The text of the first code block after `marker` (a heading, say) on the page.
    public static func block(after marker: String, in path: String) throws -> String {
        let text = try read(path)
        guard let at = text.range(of: marker) else { throw Missing(description: "\(path) has no \(marker)") }
        let line = text[..<at.lowerBound].filter { $0 == "\n" }.count + 1
        guard let b = try codeBlocks(path).first(where: { $0.line > line }) else {
            throw Missing(description: "\(path) has no code block after \(marker)")
        }
        return b.text
    }

    /// The text of the code block on the page that starts with `first`.
    public static func block(startingWith first: String, in path: String) throws -> String {
        guard let b = try codeBlocks(path).first(where: { $0.text.hasPrefix(first) }) else {
            throw Missing(description: "\(path) has no code block starting with \(first)")
        }
        return b.text
    }

    /// The text under the heading `heading` (written as on the page, `## Exit codes`), up to the
    /// next heading of the same or a higher level.
    public static func section(_ heading: String, in path: String) throws -> String {
        let level = heading.prefix { $0 == "#" }.count
        var lines: [Substring]?
        var inCode = false
        for line in try read(path).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            if !inCode, line.hasPrefix("#") {
                let l = line.prefix { $0 == "#" }.count
                if lines != nil && l <= level { break }
                if line == heading {
                    lines = []
                    continue
                }
            }
            lines?.append(line)
        }
        guard let lines else { throw Missing(description: "\(path) has no heading \(heading)") }
        return lines.joined(separator: "\n")
    }

    /// The anchors GitHub gives the page's headings: lower case, spaces to `-`, punctuation
    /// dropped, and `-1`, `-2` after a repeated one.
    public static func anchors(_ path: String) throws -> Set<String> {
        var seen: [String: Int] = [:]
        var out = Set<String>()
        var inCode = false
        for line in try read(path).split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") { inCode.toggle() }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }
            guard title.first == " " else { continue }
            let a = anchor(String(title))
            let n = seen[a, default: 0]
            seen[a] = n + 1
            out.insert(n == 0 ? a : "\(a)-\(n)")
        }
        return out
    }

    /// GitHub's anchor for a heading's text.
    public static func anchor(_ heading: String) -> String {
        var text = heading.trimmingCharacters(in: .whitespaces)
        // A link in a heading counts by its text.
        text = text.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        return String(
            text.lowercased().unicodeScalars.compactMap { c -> Character? in
                if c == " " { return "-" }
                if c == "-" || c == "_" || CharacterSet.alphanumerics.contains(c) { return Character(c) }
                return nil
            })
    }

    /// Every relative link of the page (`[text](target)` and `![alt](target)`, outside code
    /// blocks and code spans), with its line: neither a URL with a scheme nor a `mailto:`.
    public static func relativeLinks(_ path: String) throws -> [(target: String, line: Int)] {
        // Code blocks and code spans become blanks (their line breaks kept), so lines still count.
        var inCode = false
        var prose = try read(path).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inCode.toggle()
                return ""
            }
            return inCode ? "" : String(line)
        }.joined(separator: "\n")
        let span = try NSRegularExpression(pattern: "`[^`]+`")
        for m in span.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)).reversed() {
            guard let r = Range(m.range, in: prose) else { continue }
            prose.replaceSubrange(r, with: String(prose[r].map { $0 == "\n" ? "\n" : "x" }))
        }
        var out: [(String, Int)] = []
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
        for m in link.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)) {
            guard let r = Range(m.range(at: 1), in: prose) else { continue }
            let target = String(prose[r])
            if target.range(of: #"^[a-zA-Z][a-zA-Z0-9+.-]*:"#, options: .regularExpression) != nil { continue }
            out.append((target, prose[..<r.lowerBound].filter { $0 == "\n" }.count + 1))
        }
        return out
    }
}
