from averos_ci.schemas import main

main()
