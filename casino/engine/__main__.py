import sys

from casino.engine.cli import main

sys.exit(main())
