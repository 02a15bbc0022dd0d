from django.shortcuts import render

from casino.selectors import table_house_edge, table_list_open


def lobby(request):
    tables = [{"table": t, "house_edge": table_house_edge(table=t)} for t in table_list_open()]
    return render(request, "lobby.html", {"tables": tables})
