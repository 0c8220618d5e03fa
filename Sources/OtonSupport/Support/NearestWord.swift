/// "Did you mean …": the known word nearest a mistyped one (a plugin's setting, an effect's
/// parameter). The one owner of that guess.
public enum NearestWord {
    /// The known word within a small edit distance (a typo, a swapped pair), if one is clearly nearest.
    public static func nearest(to key: String, among known: [String]) -> String? {
        let limit = max(1, min(3, key.count / 3))
        let scored = known.map { ($0, editDistance(key.lowercased(), $0.lowercased())) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, table[i - 2][j - 2] + 1) }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
