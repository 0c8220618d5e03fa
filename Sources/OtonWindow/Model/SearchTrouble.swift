import OtonSupport

/// What the search page says when the directory gives no stations: a title and a sentence for people,
/// made from the CLI's message (DirectoryError's words, which name servers and resolver errors).
/// Pure: no GTK.
public struct SearchTrouble: Equatable, Sendable {
    public var title: String
    public var advice: String

    /// The directory had nothing for `query`.
    public static func nothingFound(_ query: String) -> SearchTrouble {
        SearchTrouble(
            title: tr("No stations found"),
            advice: tr("The directory has no station named like \"{query}\". Try fewer or other words.", ["query": query]))
    }

    /// Whether the CLI's message says the directory found nothing (`oton stations search` ends with
    /// status 1 then, as for a failure).
    public static func isNothingFound(_ message: String) -> Bool {
        message.contains("has no station matching")
    }

    /// The CLI's message for a search that failed, told as what to do.
    public static func failed(_ message: String) -> SearchTrouble {
        let unreachable = ["no network", "cannot be reached", "could not be reached", "did not answer in time", "no station directory server found"]
        if unreachable.contains(where: message.contains) {
            return SearchTrouble(
                title: tr("The station directory could not be reached"), advice: tr("Check the internet connection, then try again."))
        }
        let unwell = ["answered", "cannot read", "could not be read", "sent too much"]
        if unwell.contains(where: message.contains) {
            return SearchTrouble(
                title: tr("The station directory is not working right now"), advice: tr("Try again in a few minutes."))
        }
        return SearchTrouble(title: tr("The search did not work"), advice: message)
    }
}
