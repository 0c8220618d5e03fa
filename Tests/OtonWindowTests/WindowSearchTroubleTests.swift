import OtonHTTP
import OtonStations
import XCTest

@testable import OtonWindow

/// What the search page says for each of the CLI's directory failures (DirectoryError's first line,
/// as OtonCommand hands it on): words for people, never a server's address or a resolver's error.
final class WindowSearchTroubleTests: XCTestCase {
    private func firstLine(_ error: DirectoryError) -> String {
        String(error.description.split(separator: "\n")[0])
    }

    func testEachDirectoryFailureBecomesWordsForPeople() {
        let server = "https://all.api.radio-browser.info"
        let unreachable = SearchTrouble(title: "The station directory could not be reached", advice: "Check the internet connection, then try again.")
        let unwell = SearchTrouble(title: "The station directory is not working right now", advice: "Try again in a few minutes.")
        let cases: [(DirectoryError, SearchTrouble)] = [
            (.noNetwork(lookup: "the name all.api.radio-browser.info does not resolve: Name or service not known"), unreachable),
            (.unreachable(server: server, reason: .hostNotFound("Name or service not known")), unreachable),
            (.unreachable(server: server, reason: .transport("connection refused")), unreachable),
            (.unreachable(server: server, reason: .timedOut(milliseconds: 10_000)), unreachable),
            (.noServer(reason: "no SRV records"), unreachable),
            (.unreachable(server: server, reason: .http(status: 503)), unwell),
            (.unreachable(server: server, reason: .tooLarge(limit: 4_194_304)), unwell),
            (.unreadable(server: server, reason: "not JSON"), unwell),
        ]
        for (error, expected) in cases {
            XCTAssertEqual(SearchTrouble.failed(firstLine(error)), expected, firstLine(error))
        }
        // Anything else is said as the CLI said it, under a plain title.
        XCTAssertEqual(SearchTrouble.failed("something new").title, "The search did not work")
        XCTAssertEqual(SearchTrouble.failed("something new").advice, "something new")
        XCTAssertEqual(SearchTrouble.nothingFound("jazz lab").title, "No stations found")
        // The CLI ends a search that found nothing as it ends a failure (status 1): told apart by its words.
        XCTAssertTrue(SearchTrouble.isNothingFound(#"the directory at http://127.0.0.1:1 has no station matching "jazz lab""#))
        XCTAssertFalse(SearchTrouble.isNothingFound(firstLine(.unreachable(server: server, reason: .http(status: 500)))))
    }
}
