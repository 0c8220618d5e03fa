/// Names that FAT, exFAT and SMB take for the same file: they ignore case, so `Song.mp3` and
/// `SONG.mp3` are one file there. With portable names (the default) the recorder counts a name
/// as taken when the folder holds one that differs from it only in case, and numbers it
/// (`Song (2).mp3`) as it does an exact clash.
public enum CaseBlindNames {
    /// The form two names share when a case-blind filesystem takes them as one.
    public static func folded(_ name: String) -> String {
        name.lowercased()
    }

    /// True when `names` (a folder's entries) hold `candidate` in another case. An exact match is
    /// not counted here: creating the file finds that one (EEXIST). `own` is the file being
    /// renamed, which may only change its case.
    public static func isTaken(_ candidate: String, among names: some Sequence<String>, own: String? = nil) -> Bool {
        let key = folded(candidate)
        return names.contains { $0 != candidate && $0 != own && folded($0) == key }
    }
}
