from expert_gui.cli import main

raise SystemExit(main())
