"""What leaves after a commit: the fan-out of frames (events, the frame cache), notices, and the limits
on what a socket may ask (limits); the receivers of other apps' signals."""
