/// The weekdays as oton's day lists spell them ("mon" … "sun", Monday first: 1 = Monday … 7 = Sunday),
/// the one owner of their names: `oton alarm add --days` and `oton schedule` parse them, the window's
/// alarm days write them.
public enum Weekdays {
    public static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// `--days` for the chosen weekdays (1 = Monday … 7 = Sunday): "mon,wed,fri"; nil when none or all
    /// seven are chosen (every day: the time alone says it).
    public static func daysArgument(_ days: Set<Int>) -> String? {
        let valid = days.filter { (1...7).contains($0) }
        guard !valid.isEmpty, valid.count < 7 else { return nil }
        return valid.sorted().map { names[$0 - 1] }.joined(separator: ",")
    }
}
