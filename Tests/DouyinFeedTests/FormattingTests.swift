import DouyinFeed
import Foundation
import Testing

@Suite("Formatting")
struct FormattingTests {
    @Test func countsBelowTenThousandAreTheInteger() {
        #expect(FeedPolicy.formatCount(0) == "0")
        #expect(FeedPolicy.formatCount(7) == "7")
        #expect(FeedPolicy.formatCount(9_999) == "9999")
        #expect(FeedPolicy.formatCount(-3) == "0")
    }

    @Test func countsFromTenThousandAreTenThousandsWithOneDecimal() {
        #expect(FeedPolicy.formatCount(10_000) == "1.0w")
        #expect(FeedPolicy.formatCount(12_345) == "1.2w")
        #expect(FeedPolicy.formatCount(19_999) == "1.9w", "truncated, never shown higher")
        #expect(FeedPolicy.formatCount(1_234_567) == "123.4w")
        #expect(FeedPolicy.formatCount(Int.max) == "922337203685477.5w")
    }

    @Test func countsIgnoreTheLocale() {
        // No formatter is involved; a German locale's comma cannot appear.
        #expect(FeedPolicy.formatCount(25_500).contains(".") && !FeedPolicy.formatCount(25_500).contains(","))
    }

    // 2026-12-03 (a Thursday) 13:30 in Shanghai is 05:30 UTC.
    let shanghai = TimeZone(identifier: "Asia/Shanghai")!
    var now: Date { date(2026, 12, 3, 13, 30, shanghai) }

    func date(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi))!
    }

    func relative(_ d: Date, zone: TimeZone? = nil) -> String {
        FeedPolicy.formatRelativeTime(d, now: now, timeZone: zone ?? shanghai)
    }

    @Test func withinAMinuteIsJustNow() {
        #expect(relative(now.addingTimeInterval(-59)) == "刚刚")
        #expect(relative(now) == "刚刚")
    }

    @Test func todayIsHourAndMinute() {
        #expect(relative(date(2026, 12, 3, 0, 5, shanghai)) == "00:05")
        #expect(relative(now.addingTimeInterval(-60)) == "13:29")
    }

    @Test func yesterdayIsPrefixed() {
        #expect(relative(date(2026, 12, 2, 23, 59, shanghai)) == "昨天23:59")
        #expect(relative(date(2026, 12, 2, 0, 0, shanghai)) == "昨天00:00")
    }

    @Test func withinTheWeekIsTheWeekday() {
        #expect(relative(date(2026, 12, 1, 8, 0, shanghai)) == "星期二")
        #expect(relative(date(2026, 11, 27, 8, 0, shanghai)) == "星期五")
        #expect(relative(date(2026, 11, 26, 23, 0, shanghai)) == "11-26 23:00", "seven days back is a date")
    }

    @Test func earlierThisYearIsMonthDay() {
        #expect(relative(date(2026, 1, 1, 0, 0, shanghai)) == "01-01 00:00")
    }

    @Test func earlierYearsHaveTheYear() {
        #expect(relative(date(2018, 6, 26, 17, 0, shanghai)) == "18-06-26 17:00")
        #expect(relative(date(2025, 12, 31, 23, 59, shanghai)) == "25-12-31 23:59")
    }

    @Test func dayBoundariesFollowTheInjectedTimeZone() {
        // 23:30 UTC on Dec 2 is 07:30 on Dec 3 in Shanghai: today there, yesterday in UTC.
        let instant = date(2026, 12, 2, 23, 30, TimeZone(identifier: "UTC")!)
        #expect(relative(instant) == "07:30")
        #expect(relative(instant, zone: TimeZone(identifier: "UTC")!) == "昨天23:30")
    }

    @Test func futureDatesAreWrittenOutNotThisWeek() {
        #expect(relative(now.addingTimeInterval(30)) == "刚刚", "clock skew under a minute")
        #expect(relative(date(2026, 12, 5, 9, 0, shanghai)) == "12-05 09:00")
        #expect(relative(date(2027, 1, 2, 9, 0, shanghai)) == "27-01-02 09:00")
        #expect(relative(Date.distantFuture).hasSuffix("00:00") || !relative(Date.distantFuture).isEmpty)
    }
}
