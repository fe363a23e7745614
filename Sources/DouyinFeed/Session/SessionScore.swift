import DouyinSupport
import Foundation

/// The short-video QoE a session is ranked by, linear as in Pensieve, the ACM MM'22
/// short-video challenge and Dashlet:
///
/// `score = Σ gear Mbit/s × s played − μ × (s waiting to start + s stalled) − c × Mbit never played`
///
/// - s played: each started view's watch time less its start wait and its stalls, at the
///   bitrate of the gear it played;
/// - s waiting to start: from the second view on (the first is a cold start), each view's
///   start wait, the whole watch time for a view that never started;
/// - μ: the top gear's Mbit/s, so a second of waiting costs what a second of the best
///   picture earns;
/// - c: 0.5 per Mbit fetched from the origin and never played (the challenge's charge).
public struct SessionScore: Sendable, Hashable {
    /// Σ gear Mbit/s × seconds played.
    public var playedMegabits: Double
    /// Seconds waiting for views 2...N to start (a view that never started: its watch time).
    public var waitSeconds: Double
    /// Seconds stalled after a start.
    public var stallSeconds: Double
    /// Megabits fetched from the origin and never played.
    public var unplayedMegabits: Double
    /// Seconds watched in all (every view's watch time).
    public var watchSeconds: Double
    /// μ: what a second of waiting or stalling costs, the top gear's Mbit/s.
    public var waitCharge: Double
    /// c: what a megabit never played costs: 0.5 by default.
    public var wasteCharge: Double

    /// A score from its parts.
    public init(playedMegabits: Double, waitSeconds: Double, stallSeconds: Double, unplayedMegabits: Double, watchSeconds: Double,
                waitCharge: Double, wasteCharge: Double = 0.5) {
        self.playedMegabits = playedMegabits
        self.waitSeconds = waitSeconds
        self.stallSeconds = stallSeconds
        self.unplayedMegabits = unplayedMegabits
        self.watchSeconds = watchSeconds
        self.waitCharge = waitCharge
        self.wasteCharge = wasteCharge
    }

    /// The score of a replayed session whose feed's top gear is `topBitRate` bits per second.
    /// `unplayedBytes` replaces the report's own count when given (say, from the origin's own
    /// log, which also counts bytes the client never read).
    public init(report: SessionReport, topBitRate: Int, unplayedBytes: Int64? = nil, wasteCharge: Double = 0.5) {
        var played = 0.0, wait = 0.0, stall = 0.0
        for (offset, view) in report.views.enumerated() {
            let watch = view.watch.inSeconds
            if view.started {
                played += Double(view.bitRate) / 1e6 * max(0, watch - view.start.inSeconds - view.stall.inSeconds)
                stall += view.stall.inSeconds
            }
            if offset > 0 { wait += view.started ? view.start.inSeconds : watch }
        }
        self.init(playedMegabits: played, waitSeconds: wait, stallSeconds: stall,
                  unplayedMegabits: Double(max(0, unplayedBytes ?? report.unplayedBytes)) * 8 / 1e6,
                  watchSeconds: report.watchTime.inSeconds, waitCharge: Double(max(1, topBitRate)) / 1e6, wasteCharge: wasteCharge)
    }

    /// The score.
    public var value: Double {
        playedMegabits - waitCharge * (waitSeconds + stallSeconds) - wasteCharge * unplayedMegabits
    }

    /// The score per minute watched; 0 when nothing was watched.
    public var perWatchedMinute: Double {
        watchSeconds > 0 ? value / (watchSeconds / 60) : 0
    }
}
