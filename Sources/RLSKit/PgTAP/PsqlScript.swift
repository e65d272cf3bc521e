import Foundation

/// One thing a pgTAP file asks for, in order: SQL to send, text to echo, or the end.
struct PsqlStep: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case sql(String)
        /// `\echo` / `\qecho`: psql prints it to the TAP stream.
        case echo(String)
        /// `\q`: the file ends here.
        case quit
        /// A command psql fails at run time (`\i` of a missing file): the file stops here, as
        /// psql with ON_ERROR_STOP stops, and fails; the other files still run.
        case error(String)
    }
    var kind: Kind
    /// Where the statement or command starts (the included file for `\i`).
    var location: SourceLocation
}

/// A pgTAP file read the way psql reads it: statements split, `\set` variables substituted,
/// `\i` files included, and unsupported meta-commands collected as problems.
@_spi(CLI) public struct PsqlScript: Sendable {
    var file: String
    var steps: [PsqlStep] = []
    /// Why the file cannot run. Non-empty means nothing runs.
    var problems: [ScriptProblem] = []
    /// True when the file mentions `tests.`: only then are the helpers installed.
    var usesHelpers = false
    /// The file installs basejump's helpers through dbdev: that preamble is skipped.
    var dbdev = false
    /// Functions the file defines to run that preamble: their calls are skipped with it.
    var preambleWrappers: Set<String> = []
    /// Per step, read once after loading: its first words (names too) and how the runner treats it.
    var words: [[String]] = []
    var kinds: [StatementKind] = []

    /// Meta-commands with no effect on what the server receives.
    static let ignored: Set<String> = ["pset", "timing", "x", "t", "a", "f", "encoding", "C", "H"]
    static let maxIncludeDepth = 16

    /// Every file the script reads: itself and what it includes (`\i`, `\ir`).
    @_spi(CLI) var files: [String] { Array(Set(steps.map(\.location.file))).sorted() }

    /// The files `load` would read, without splitting a file that includes nothing.
    @_spi(CLI) public static func inputs(path: String, display: String) -> [String] {
        guard case .success(let text) = readText(path), text.contains("\\i") else { return [display] }
        return load(path: path, display: display).files
    }

    /// Reads `path`; `display` is how the file is named in messages.
    static func load(path: String, display: String? = nil) -> PsqlScript {
        var script = PsqlScript(file: display ?? path)
        var vars: [String: String] = [:]
        script.read(path: path, display: display ?? path, vars: &vars, depth: 0, from: nil)
        script.words = script.steps.map { step in
            if case .sql(let sql) = step.kind { SQLScanner.keywords(sql, count: 6, names: true) } else { [] }
        }
        script.kinds = zip(script.steps, script.words).map { step, words in
            if case .sql(let sql) = step.kind {
                StatementKind.of(sql, words: words, dbdev: script.dbdev, wrappers: script.preambleWrappers)
            } else {
                .other
            }
        }
        return script
    }

    mutating func read(path: String, display: String, vars: inout [String: String], depth: Int, from: SourceLocation?) {
        let text: String
        switch Self.readText(path) {
        case .success(let t): text = t
        case .failure(let reason):
            // psql fails a missing or unreadable include when it reaches it; a file outside the
            // folders rlskit was given is rlskit's refusal, and stops the run.
            if let from, ProjectFiles.refusal(path) == nil {
                steps.append(PsqlStep(kind: .error("cannot include \(display): \(reason)"), location: from))
            } else {
                problems.append(
                    from.map { ScriptProblem($0, "cannot include \(display): \(reason)") }
                        ?? ScriptProblem(SourceLocation(file: display, line: 1), "\(reason)"))
            }
            return
        }
        if let nul = text.unicodeScalars.firstIndex(of: "\u{0}") {
            let (line, column) = SQLScanner.lineAndColumn(
                ofPosition: text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: nul) + 1, in: text)
            problems.append(
                ScriptProblem(
                    SourceLocation(file: display, line: line, column: column),
                    "contains a NUL byte, which PostgreSQL cannot accept: remove it"))
            return
        }
        if text.range(of: "tests.", options: .caseInsensitive) != nil { usesHelpers = true }
        if StatementKind.mentionsDbdev(text) { dbdev = true }
        for st in SQLScanner.statements(in: text) {
            let loc = SourceLocation(file: display, line: st.line, column: st.column)
            guard st.kind == .meta else {
                let sql = PsqlVariables.substitute(st.text, vars)
                if Self.isCopyThroughClient(sql) {
                    problems.append(
                        ScriptProblem(
                            loc,
                            "COPY … FROM STDIN / TO STDOUT is not supported (psql streams that data itself); use INSERT … VALUES"
                        ))
                }
                if dbdev, let name = StatementKind.preambleFunction(sql) { preambleWrappers.insert(name) }
                steps.append(PsqlStep(kind: .sql(sql), location: loc))
                continue
            }
            let (name, rest) = Self.splitCommand(st.text)
            let args: [String]
            do { args = try PsqlVariables.arguments(rest, vars) } catch {
                problems.append(ScriptProblem(loc, "\\\(name): \(error)"))
                continue
            }
            switch name {
            case "set":
                guard let key = args.first else { continue }
                guard PsqlVariables.isName(key) else {
                    problems.append(ScriptProblem(loc, "\\set: invalid variable name '\(key)'"))
                    continue
                }
                vars[key] = args.dropFirst().joined()
            case "unset":
                if let key = args.first { vars.removeValue(forKey: key) }
            case "echo", "qecho", "warn":
                // -n only drops the newline, which the TAP stream does not care about.
                let line = (args.first == "-n" ? args.dropFirst() : args[...]).joined(separator: " ")
                steps.append(PsqlStep(kind: .echo(name == "warn" ? "# " + line : line), location: loc))
            case "i", "include", "ir", "include_relative":
                guard let target = args.first, !target.isEmpty else {
                    problems.append(ScriptProblem(loc, "\\\(name) needs a file name"))
                    continue
                }
                guard depth < Self.maxIncludeDepth else {
                    problems.append(
                        ScriptProblem(
                            loc,
                            "\\\(name) \(target): includes nested more than \(Self.maxIncludeDepth) deep (a cycle?)"))
                    continue
                }
                let resolved = Self.resolveInclude(
                    target, relative: name.hasPrefix("ir") || name == "include_relative", from: path)
                read(
                    path: resolved, display: Self.displayPath(resolved, like: display, from: path, target: target),
                    vars: &vars, depth: depth + 1, from: loc)
            case "q", "quit":
                steps.append(PsqlStep(kind: .quit, location: loc))
                return
            case _ where Self.ignored.contains(name):
                continue
            case "c", "connect":
                problems.append(
                    ScriptProblem(
                        loc,
                        "\\\(name) is not supported by rlskit pgtap: it runs each file over one connection inside one rolled-back transaction"
                    ))
            case "gexec", "gset", "g", "gx", "gdesc", "crosstabview":
                problems.append(
                    ScriptProblem(
                        loc,
                        "\\\(name) is not supported by rlskit pgtap, so the file does not run: write it in SQL ending in ';' (a subquery instead of \\gset, EXECUTE in a DO block instead of \\gexec)"
                    ))
            case "!", "o", "out", "copy", "w", "write", "if", "elif", "else", "endif", "cd", "setenv", "s", "e", "edit":
                problems.append(
                    ScriptProblem(
                        loc, "\\\(name) is not supported by rlskit pgtap (the file does not run) \(Self.supported)"))
            default:
                problems.append(
                    ScriptProblem(
                        loc,
                        "\\\(name) is not supported by rlskit pgtap (the file does not run; not a psql command) \(Self.supported)"
                    ))
            }
        }
    }

    static let supported =
        "(supported: \\set \\unset \\i \\ir \\echo \\qecho \\warn \\q; ignored: \\pset \\timing \\x \\t \\a)"

    static func isCopyThroughClient(_ sql: String) -> Bool {
        let words = SQLScanner.keywords(sql, count: 1)
        guard words.first == "copy" else { return false }
        let lower = sql.lowercased()
        return lower.contains("stdin") || lower.contains("stdout")
    }

    /// `\set x 1` → ("set", "x 1"). Command names end at whitespace or a quote, as in psql.
    static func splitCommand(_ text: String) -> (String, String) {
        let body = text.dropFirst()
        if body.first == "!" { return ("!", String(body.dropFirst())) }
        let end = body.firstIndex { $0.isWhitespace || $0 == "'" || $0 == "\"" || $0 == "\\" } ?? body.endIndex
        return (String(body[..<end]), String(body[end...]))
    }

    /// psql resolves `\i` against the working directory and `\ir` against the including file;
    /// `\i` falls back to the including file's folder so suites run from any directory.
    static func resolveInclude(_ target: String, relative: Bool, from path: String) -> String {
        if target.hasPrefix("/") { return target }
        let beside = (URL(fileURLWithPath: path).deletingLastPathComponent().path as NSString).appendingPathComponent(
            target)
        if relative { return beside }
        let cwd = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(target)
        return FileManager.default.fileExists(atPath: cwd) ? cwd : beside
    }

    /// Names an included file relative to the including file's display path where possible.
    static func displayPath(_ resolved: String, like display: String, from path: String, target: String) -> String {
        if target.hasPrefix("/") { return target }
        let dir = FilePath.parent(display)
        let beside = (URL(fileURLWithPath: path).deletingLastPathComponent().path as NSString).appendingPathComponent(
            target)
        guard resolved == beside else { return target }
        return ((dir.isEmpty ? target : (dir as NSString).appendingPathComponent(target)) as NSString).standardizingPath
    }

    static func readText(_ path: String) -> Result<String, ReadFailure> {
        // Refused before anything is said of it: whether a file outside exists is not the project's to learn.
        if let why = ProjectFiles.refusal(path) { return .failure(ReadFailure(why)) }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            return .failure(ReadFailure("no such file"))
        }
        if isDir.boolValue { return .failure(ReadFailure("is a directory")) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(ReadFailure("cannot read the file (permissions?)"))
        }
        guard let text = TextFile.decode(data) else { return .failure(ReadFailure("not UTF-8 text")) }
        return .success(text)
    }

    struct ReadFailure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}
