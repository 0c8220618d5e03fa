import FileSinkLogic
import XCTest

/// The file sink in wishlist mode: only announced wishes stay, whole ones beside the others, a wish
/// heard from its middle in incomplete/ only when the policy is not drop.
final class WishlistPlacementTests: XCTestCase {
    private func place(complete: Bool, seconds: Double = 200, policy: PartialPolicy, _ wish: WishDecision) -> Placement {
        wishlistPlacement(relativeName: "FM/A - B.mp3", complete: complete, seconds: seconds, minimumSeconds: 5, policy: policy, wish: wish)
    }

    func testOnlyAnnouncedWishesAreKept() {
        XCTAssertEqual(place(complete: true, policy: .drop, .keep), .keep("FM/A - B.mp3"))
        XCTAssertEqual(place(complete: true, policy: .drop, .notWished), .drop("not on the wishlist, not kept"))
        guard case .drop = place(complete: true, policy: .keep, WishDecision(keep: "false", why: "kept-before")) else {
            return XCTFail("a wish kept before is dropped")
        }
        XCTAssertEqual(WishDecision.notWished.reasonCode, "not-wished")
        XCTAssertEqual(WishDecision(keep: "false", why: "being-kept").reasonCode, "wish-not-kept")
        XCTAssertEqual(WishDecision(keep: "true", why: nil), .keep)
    }

    func testAWishHeardFromItsMiddleGoesToIncompleteOnlyWhenAskedFor() {
        guard case .drop = place(complete: false, policy: .drop, .keep) else { return XCTFail("--partial drop (the default) drops it") }
        XCTAssertEqual(place(complete: false, policy: .keep, .keep), .keep("FM/incomplete/A - B.mp3"), "--partial keep: into incomplete/")
        XCTAssertEqual(place(complete: false, policy: .incomplete, .keep), .keep("FM/incomplete/A - B.mp3"))
        guard case .drop = place(complete: true, seconds: 2, policy: .keep, .keep) else { return XCTFail("too short is too short") }
    }
}
