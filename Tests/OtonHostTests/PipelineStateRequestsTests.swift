import CGStreamer
import XCTest

@testable import OtonHost

/// Issue 27.7: live MPEG-TS HLS stalled at the start in about one run of four. The cause is a race in
/// GStreamer 1.22's bins, made to happen every time here: a bin finishes its preroll (ASYNC_DONE) and
/// hands the rest of the change to PLAYING to a thread of its own; a PAUSED and a PLAYING set in
/// between (what buffering messages ask at that moment) abort that thread and are themselves taken as
/// "already under way", so nothing takes the pipeline to PLAYING. The test holds the pipeline's state
/// lock to keep the continuation waiting while the two requests land, on a real audiotestsrc ! fakesink.
final class PipelineStateRequestsTests: XCTestCase {
    private var pipeline: UnsafeMutablePointer<GstElement>!

    override func setUp() {
        _ = GLibMainLoop.shared  // gst_init
        pipeline = gst_parse_launch("audiotestsrc ! fakesink sync=true", nil)
    }

    override func tearDown() {
        _ = gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }

    /// Without the requests: GStreamer's own behaviour, the stall this works around.
    func testTwoStateChangesDuringTheContinuationLeaveABarePipelinePaused() {
        raceTheContinuation(asking: [GST_STATE_PAUSED, GST_STATE_PLAYING]) { state in _ = gst_element_set_state(pipeline, state) }
        XCTAssertEqual(
            settledState(within: 3), GST_STATE_PAUSED,
            "GStreamer 1.22 leaves the pipeline PAUSED with PLAYING pending; if this changed, PipelineStateRequests may no longer be needed")
    }

    /// With the requests, the same two changes wait for the continuation and the pipeline plays.
    func testRequestsDuringTheContinuationWaitAndThePipelinePlays() {
        let requests = PipelineStateRequests(pipeline: pipeline)
        raceTheContinuation(start: { requests.request(GST_STATE_PLAYING) }, asking: [GST_STATE_PAUSED, GST_STATE_PLAYING]) { requests.request($0) }
        XCTAssertEqual(settle(requests, until: GST_STATE_PLAYING), GST_STATE_PLAYING)
    }

    /// The last request wins, also when it came while the continuation waited: a PAUSED asked then
    /// (the buffer emptied again) is applied once the pipeline has reached PLAYING.
    func testTheLastRequestDuringTheContinuationIsAppliedAfterIt() {
        let requests = PipelineStateRequests(pipeline: pipeline)
        raceTheContinuation(start: { requests.request(GST_STATE_PLAYING) }, asking: [GST_STATE_PLAYING, GST_STATE_PAUSED]) { requests.request($0) }
        XCTAssertEqual(settle(requests, until: GST_STATE_PAUSED), GST_STATE_PAUSED)
    }

    /// Feeds the pipeline's STATE_CHANGED messages to `requests` as the bus watch does, until the
    /// pipeline settles in `state` (or 10 s pass); returns the state it settled in.
    private func settle(_ requests: PipelineStateRequests, until state: GstState) -> GstState {
        _ = waitForPipelineMessage(timeout: 10) { _, new, pending in
            guard pending == GST_STATE_VOID_PENDING else { return false }
            requests.settled()
            return new == state
        }
        return settledState(within: 10)
    }

    /// A request made while nothing is under way is applied at once; one made after close() never is.
    func testARequestWithNothingUnderWayIsAppliedAndNoneAfterClose() {
        let requests = PipelineStateRequests(pipeline: pipeline)
        requests.request(GST_STATE_READY)
        XCTAssertEqual(settledState(within: 10), GST_STATE_READY)
        requests.close()
        requests.request(GST_STATE_PAUSED)
        XCTAssertEqual(settledState(within: 1), GST_STATE_READY)
    }

    /// Holds the pipeline's state lock, starts it, lets the preroll finish (ASYNC_DONE: the continuation
    /// to PLAYING is queued and waits for the lock), asks for `states` in turn as the buffering messages
    /// did, and lets go of the lock.
    private func raceTheContinuation(start: (() -> Void)? = nil, asking states: [GstState], ask: (GstState) -> Void) {
        otgst_state_lock(pipeline)  // recursive: this thread's own set_state calls still go through
        if let start { start() } else { _ = gst_element_set_state(pipeline, GST_STATE_PLAYING) }
        // The bin notes its state cookie for the continuation before it posts this message: any change
        // asked from here on makes the continuation abort, however late its thread runs.
        XCTAssertTrue(waitForPipelineMessage(timeout: 10) { _, new, _ in new == GST_STATE_PAUSED }, "the preroll finished")
        states.forEach(ask)
        otgst_state_unlock(pipeline)
    }

    /// Pops the pipeline's own STATE_CHANGED messages until `matches` says yes.
    private func waitForPipelineMessage(timeout: TimeInterval, _ matches: (GstState, GstState, GstState) -> Bool) -> Bool {
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = gst_bus_timed_pop_filtered(bus, 100 * 1_000_000, GST_MESSAGE_STATE_CHANGED) else { continue }
            defer { gst_message_unref(message) }
            guard otgst_message_source(message) == otgst_object(pipeline) else { continue }
            var old = GST_STATE_NULL, new = GST_STATE_NULL, pending = GST_STATE_NULL
            gst_message_parse_state_changed(message, &old, &new, &pending)
            if matches(old, new, pending) { return true }
        }
        return false
    }

    /// The state the pipeline is in once a change under way ends, or after `seconds`.
    private func settledState(within seconds: Double) -> GstState {
        var current = GST_STATE_VOID_PENDING
        _ = gst_element_get_state(pipeline, &current, nil, GstClockTime(seconds * 1_000_000_000))
        return current
    }
}
