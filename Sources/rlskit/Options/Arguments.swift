/// A hand-written argument parser: long options (`--name value`, `--name=value`), short
/// aliases, flags, repeatable options and positionals. Small on purpose.
struct OptionSpec: Sendable {
    var name: String
    var short: Character? = nil
    /// nil for a flag; else the value's placeholder in help, e.g. "URL".
    var value: String? = nil
    var help: String
    var repeatable = false

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, help: help)
    }
    static func option(_ name: String, _ value: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, value: value, help: help, repeatable: repeatable)
    }
}

struct CommandSpec: Sendable {
    var name: String
    var summary: String
    /// e.g. "[PATH…]"
    var positionals: String = ""
    var maxPositionals: Int = 0
    var details: String = ""
    var options: [OptionSpec]

    var usage: String {
        "usage: rlskit \(name) [options]" + (positionals.isEmpty ? "" : " " + positionals)
    }

    var help: String {
        var out = "rlskit \(name) — \(summary)\n\n\(usage)\n"
        if !details.isEmpty { out += "\n" + details + "\n" }
        out += "\noptions:\n"
        let all = options + [.flag("help", short: "h", "Show this help.")]
        let labels = all.map { o -> String in
            (o.short.map { "-\($0), " } ?? "    ") + "--\(o.name)" + (o.value.map { " \($0)" } ?? "")
        }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, o) in zip(labels, all) {
            out += "  " + label + String(repeating: " ", count: width - label.count) + o.help + "\n"
        }
        return out
    }
}

struct UsageError: Error, CustomStringConvertible {
    var message: String
    var usage: String
    var description: String { message }
}

struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
}

extension CommandSpec {
    func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        func fail(_ m: String) -> UsageError { UsageError(message: m, usage: usage) }
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                out.positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name: String
            var inline: String?
            if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                }
            } else {
                guard arg.count == 2, let s = arg.last else { throw fail("unknown option '\(arg)'") }
                if s == "h" {
                    name = "help"
                } else {
                    guard let o = options.first(where: { $0.short == s }) else { throw fail("unknown option '\(arg)'") }
                    name = o.name
                }
            }
            if name == "help" {
                out.flags.insert("help")
                continue
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let hint =
                    Suggestion.closest(to: name, among: options.map(\.name) + ["help"]).map {
                        " (did you mean '--\($0)'?)"
                    } ?? ""
                throw fail("unknown option '--\(name)'" + hint)
            }
            if spec.value == nil {
                if inline != nil { throw fail("option '--\(name)' takes no value") }
                out.flags.insert(name)
                continue
            }
            let v: String
            if let inline {
                v = inline
            } else {
                guard i < args.count else { throw fail("option '--\(name)' needs a value (\(spec.value!))") }
                v = args[i]
                i += 1
            }
            if !spec.repeatable, out.values[name] != nil { throw fail("option '--\(name)' given twice") }
            out.values[name, default: []].append(v)
        }
        if out.positionals.count > maxPositionals && !out.flag("help") {
            throw fail(maxPositionals == 0 ? "unexpected argument '\(out.positionals[0])'" : "too many arguments")
        }
        return out
    }
}

/// The known word a mistyped one most likely meant: the fewest edits, within a third of its length.
enum Suggestion {
    static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, word.count / 3)
        let scored = candidates.map { ($0, distance(word.lowercased(), $0)) }.filter { $0.1 <= limit }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        // A unique option that starts with what was typed (`--data` for `--database-url`).
        let prefixed = candidates.filter { word.count >= 3 && $0.hasPrefix(word) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
