import FileSinkLogic
import Foundation

/// The track a ``Recorder`` is cutting: its segment, its .part file (or, on demand, its audio in
/// memory until record-current), its index entry and its cue marks. The Recorder's alone.
final class RecorderTrack {
    var segment: TrackSplitter.Segment
    var file: PartFile?
    /// On-demand mode: the track so far, in memory, until record-current.
    var buffered: [(bytes: [UInt8], nanoseconds: Int64)] = []
    var bufferedBytes = 0
    var lostStart = false
    var persist: Bool
    var artworkPath: String?
    var entry: RecordingIndex.Track
    /// --no-split: the titles that began inside this file after its first.
    var marks: [CueSheet.Track] = []
    /// When the track began here: its file's {date}/{time}, and a titleless track's name, stay put.
    let began = Date()

    init(segment: TrackSplitter.Segment, persist: Bool, entry: RecordingIndex.Track) {
        self.segment = segment
        self.persist = persist
        self.entry = entry
    }
}
