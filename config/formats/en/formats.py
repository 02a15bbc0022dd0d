# "2 Dec 2026, 04:56:12 UTC": day before month (English is read far beyond the United States), a 24-hour clock.
DATETIME_FORMAT = "j M Y, H:i:s T"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
DATE_FORMAT = "j M Y"
SHORT_DATE_FORMAT = DATE_FORMAT
TIME_FORMAT = "H:i:s T"
