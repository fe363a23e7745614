import Foundation

extension FeedPolicy {
    /// A count as the app shows it (likes, comments, shares): below 10,000 the integer
    /// (`9999`); from 10,000 the ten-thousands with one decimal, truncated so a count is never
    /// shown higher than it is, and `w` (`12345` → `1.2w`, `10000` → `1.0w`). ASCII digits and
    /// a dot whatever the locale; negative counts (a server's bug) show as `0`.
    public static func formatCount(_ count: Int) -> String {
        guard count > 0 else { return "0" }
        guard count >= 10_000 else { return String(count) }
        let tenths = count / 1_000
        return "\(tenths / 10).\(tenths % 10)w"
    }

    /// A post's or comment's time relative to `now`, in the app's words: `刚刚` within a
    /// minute, `HH:mm` today, `昨天HH:mm` yesterday, the weekday (`星期三`) within the last
    /// seven days, `MM-dd HH:mm` earlier this year, `yy-MM-dd HH:mm` before. Days are
    /// counted on `calendar` in `timeZone` (both injected; nothing reads the device's).
    /// A date in the future (clock skew, a server's bug) is `刚刚` when under a minute ahead,
    /// else written out in full (`MM-dd HH:mm` this year, `yy-MM-dd HH:mm` otherwise) —
    /// never "today" or a weekday.
    public static func formatRelativeTime(_ date: Date, now: Date, calendar: Calendar = Calendar(identifier: .gregorian), timeZone: TimeZone) -> String {
        var calendar = calendar
        calendar.timeZone = timeZone
        let seconds = now.timeIntervalSince(date)
        guard seconds.isFinite else { return "" }
        if abs(seconds) < 60 { return "刚刚" }
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
        let nowYear = calendar.component(.year, from: now)
        let time = two(parts.hour) + ":" + two(parts.minute)
        let monthDay = two(parts.month) + "-" + two(parts.day) + " " + time
        let full = two((parts.year ?? 0) % 100) + "-" + monthDay
        guard seconds > 0 else { return parts.year == nowYear ? monthDay : full }
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: now)).day ?? Int.max
        switch days {
        case 0: return time
        case 1: return "昨天" + time
        case 2...6: return weekdayNames[((parts.weekday ?? 1) - 1 + 7) % 7]
        default: return parts.year == nowYear ? monthDay : full
        }
    }

    /// Sunday first, as `Calendar`'s weekday component counts (1 = Sunday).
    private static let weekdayNames = ["星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"]

    private static func two(_ value: Int?) -> String {
        let value = max(0, value ?? 0)
        return value < 10 ? "0\(value)" : String(value)
    }
}
