"""How the pages write moments and dates, one format per language (FORMAT_MODULE_PATH): the player's
pages and the back office alike, always with the time zone. `core.times.moment_text` and the `when`
filters use DATETIME_FORMAT; Django's admin uses it for every date and time it shows. The scripts
mirror it (web/static/web/app.js, `when`)."""
