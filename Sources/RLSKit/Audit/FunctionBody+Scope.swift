// Whether a body ties what it touches to the caller: the RPC pattern a signed-in user may call.
extension FunctionBody {
    /// Each statement's range and the indices of its conditions (after WHERE, IF, AND, ON …).
    func statementsWithConditions() -> [(range: Range<Int>, conditions: [Int])] {
        var out: [(Range<Int>, [Int])] = []
        var start = 0
        var inCondition = false
        var conditions: [Int] = []
        for i in words.indices {
            let k = key(i)
            if Self.conditionStart.contains(k) {
                inCondition = true
            } else if Self.conditionEnd.contains(k) {
                inCondition = false
            } else if inCondition {
                conditions.append(i)
            }
            if k == ";" || i == words.count - 1 {
                out.append((start..<(i + 1), conditions))
                start = i + 1
                conditions = []
            }
        }
        return out
    }

    /// The id arguments (`arguments` names) that no condition ties to the caller, or nil when the
    /// body does not tie what it does to the caller: a condition ties an argument when it also
    /// names the caller (`auth.uid()`, `auth.jwt()`, a caller helper, or a variable filled from
    /// such a statement). Every UPDATE and DELETE must be tied so; a body that never names the
    /// caller is not scoped at all.
    /// Any of `lookedUp` (all arguments) that a lookup's or write's condition names untied counts too:
    /// `where name = p_team_name` finds a row of anyone's.
    func untiedArguments(_ arguments: [String], lookedUp: [String] = [], helpers: Set<String>) -> [String]? {
        var tiedVars = Set<String>()
        var tiedArgs = Set<String>()
        var untiedLookups: [String] = []
        var namesCaller = false
        for (range, conditions) in statementsWithConditions() {
            let refersToCaller: (Int) -> Bool = { i in
                self.checkAt(i, helpers: helpers, secretArguments: []) != nil
                    || (self.words[i].kind == .word && self.key(i - 1) != "." && tiedVars.contains(self.key(i)))
            }
            let conditionTied = conditions.contains(where: refersToCaller)
            let assigned = assignedVariables(in: range.lowerBound...(range.upperBound - 1))
            // `v := auth.uid()`, `select … into v from t where user_id = auth.uid()`.
            let isAssignment = range.contains { key($0) == ":=" } || (range.lowerBound < declareEnd)
            if conditionTied || (isAssignment && range.contains(where: refersToCaller)) {
                tiedVars.formUnion(assigned)
            }
            if range.contains(where: refersToCaller) { namesCaller = true }
            let named = conditions.filter { key($0 - 1) != "." }.map { key($0) }
            if conditionTied {
                tiedArgs.formUnion(named)
            } else if range.contains(where: { ["from", "update", "delete", "join"].contains(key($0)) }) {
                untiedLookups += lookedUp.filter { named.contains($0) && !untiedLookups.contains($0) }
            }
            let writes = range.contains {
                ["update", "delete"].contains(key($0)) && !["on", "do", "for"].contains(key($0 - 1))
            }
            if writes, !conditionTied { return nil }
        }
        guard namesCaller else { return nil }
        let untied = (arguments + untiedLookups).filter { !$0.isEmpty && !tiedArgs.contains($0) }
        return untied.enumerated().filter { !untied.prefix($0.offset).contains($0.element) }.map(\.element)
    }
}
