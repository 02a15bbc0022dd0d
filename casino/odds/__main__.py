import sys

from casino.odds.cli import main

sys.exit(main())
