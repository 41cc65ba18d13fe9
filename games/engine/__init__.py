"""The rules of Gin Rommé and Rommé: a pure library (standard library only, no Django, no clock, no global
random state) that the site, the bots, the referee and ``manage.py replay`` all stand on."""
