import Foundation

/// One `ok` / `not ok` line and the diagnostics after it.
struct TAPTest: Sendable, Equatable {
    enum Directive: Sendable, Equatable { case none, skip, todo }
    var number: Int
    var ok: Bool
    var description: String
    var directive: Directive = .none
    var reason: String = ""
    var diagnostics: [String] = []
    /// Where the statement that printed it starts.
    var location: SourceLocation?
    var duration: Double = 0
    /// Numbered past the plan.
    var unplanned = false

    /// Passing as TAP::Parser judges it: TODO reverses the sense, unplanned always fails.
    var isOK: Bool { !unplanned && (directive == .todo || ok) }
}

/// What a TAP stream says, judged the way `prove`/`pg_prove` (TAP::Parser) judge it.
struct TAPSummary: Sendable, Equatable {
    var tests: [TAPTest] = []
    var planned: Int?
    /// `1..0 # SKIP reason`: the whole file was skipped.
    var skipAll: String?
    /// Parse errors: bad plan, missing plan, tests out of sequence…
    var problems: [String] = []
    var bailOut: String?
    /// Comments before the first test.
    var diagnostics: [String] = []

    var failedCount: Int { tests.count { !$0.isOK } }
    var passed: Bool { failedCount == 0 && problems.isEmpty && bailOut == nil }
}

/// A line of output with where it came from.
struct TAPLine: Sendable, Equatable {
    var text: String
    var location: SourceLocation?
    var duration: Double
    init(_ text: String, location: SourceLocation? = nil, duration: Double = 0) {
        self.text = text
        self.location = location
        self.duration = duration
    }
}

enum TAPParser {
    /// Parses a whole stream. `complete` is false when the file stopped early (an SQL
    /// error); then a missing plan is not reported, the error already says why. A short plan
    /// still is, as pg_prove says it.
    static func parse(_ lines: [TAPLine], complete: Bool = true) -> TAPSummary {
        var s = TAPSummary()
        var planAt: Int?  // tests seen when the plan line came
        var testsAfterPlan = false
        for line in lines {
            let text = line.text.hasSuffix("\r") ? String(line.text.dropLast()) : line.text
            if s.bailOut != nil { break }
            if text.hasPrefix("Bail out!") {
                s.bailOut = text.dropFirst("Bail out!".count).trimmingCharacters(in: .whitespaces)
                break
            }
            if let plan = parsePlan(text) {
                if planAt != nil {
                    s.problems.append("more than one plan found in the TAP output")
                } else {
                    planAt = s.tests.count
                    s.planned = plan.count
                    if plan.count == 0 { s.skipAll = plan.skip ?? "" }
                }
                continue
            }
            if var t = parseTest(text) {
                let expected = s.tests.count + 1
                if t.number == 0 { t.number = expected }
                if t.number != expected && !s.problems.contains(where: { $0.hasPrefix("tests out of sequence") }) {
                    s.problems.append("tests out of sequence: found test \(t.number) but expected \(expected)")
                }
                if planAt != nil { testsAfterPlan = true }
                t.location = line.location
                t.duration = line.duration
                s.tests.append(t)
                continue
            }
            if text.hasPrefix("#") {
                let d = text.dropFirst().trimmingCharacters(in: .init(charactersIn: " "))
                // pgTAP's finish() summary repeats what the plan check reports.
                if d.hasPrefix("Looks like you") { continue }
                if s.tests.isEmpty { s.diagnostics.append(d) } else { s.tests[s.tests.count - 1].diagnostics.append(d) }
            }
            // Anything else (uuids from helper calls, stray output) is not TAP: ignored, as prove does.
        }
        if let p = planAt, p > 0, testsAfterPlan {
            s.problems.append("the plan (1..\(s.planned ?? 0)) must be at the beginning or the end of the output")
        }
        if let planned = s.planned {
            for i in s.tests.indices where s.tests[i].number > planned { s.tests[i].unplanned = true }
            if s.tests.count != planned {
                s.problems.append("planned \(planned) test\(planned == 1 ? "" : "s") but ran \(s.tests.count)")
            }
        } else if complete && s.bailOut == nil {
            s.problems.append("no plan found in the TAP output (call plan(n), or no_plan() with finish())")
        }
        return s
    }

    /// `1..N`, optionally `1..0 # SKIP reason`.
    static func parsePlan(_ text: String) -> (count: Int, skip: String?)? {
        guard text.hasPrefix("1..") else { return nil }
        let rest = text.dropFirst(3)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let n = Int(digits) else { return nil }
        let tail = rest.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        if tail.isEmpty { return (n, nil) }
        guard tail.hasPrefix("#") else { return nil }
        let d = tail.dropFirst().trimmingCharacters(in: .whitespaces)
        if d.lowercased().hasPrefix("skip") {
            return (n, String(d.drop { !$0.isWhitespace }).trimmingCharacters(in: .whitespaces))
        }
        return (n, nil)
    }

    /// `ok 3 - description # TODO reason`; number 0 when absent.
    static func parseTest(_ text: String) -> TAPTest? {
        var rest: Substring
        let ok: Bool
        if text.hasPrefix("ok") {
            ok = true
            rest = text.dropFirst(2)
        } else if text.hasPrefix("not ok") {
            ok = false
            rest = text.dropFirst(6)
        } else {
            return nil
        }
        if let c = rest.first, !c.isWhitespace { return nil }
        rest = rest.drop { $0 == " " || $0 == "\t" }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        let number = Int(digits) ?? 0
        rest = rest.dropFirst(digits.count).drop { $0 == " " || $0 == "\t" }
        if rest.hasPrefix("-") { rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" } }
        var t = TAPTest(number: number, ok: ok, description: "")
        // The directive starts at the first unescaped '#'.
        var desc = ""
        var idx = rest.startIndex
        var directiveText: Substring?
        while idx < rest.endIndex {
            let c = rest[idx]
            if c == "\\", rest.index(after: idx) < rest.endIndex {
                let n = rest[rest.index(after: idx)]
                if n == "#" || n == "\\" {
                    desc.append(n)
                    idx = rest.index(idx, offsetBy: 2)
                    continue
                }
            }
            if c == "#" {
                directiveText = rest[rest.index(after: idx)...]
                break
            }
            desc.append(c)
            idx = rest.index(after: idx)
        }
        t.description = desc.trimmingCharacters(in: .whitespaces)
        if let d = directiveText {
            let trimmed = d.trimmingCharacters(in: .whitespaces)
            let word = trimmed.prefix { !$0.isWhitespace }.uppercased()
            let reason = String(trimmed.dropFirst(word.count)).trimmingCharacters(in: .whitespaces)
            if word.hasPrefix("SKIP") {
                t.directive = .skip
                t.reason = reason
            } else if word == "TODO" {
                t.directive = .todo
                t.reason = reason
            } else {
                // Not a directive: the '#' belongs to the description.
                t.description = (desc + "#" + d).trimmingCharacters(in: .whitespaces)
            }
        }
        return t
    }
}
