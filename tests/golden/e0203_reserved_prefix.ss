## Names generated code keeps for itself: `_ss_…` and `_unchecked_…`.

fn _ss_x_exp(x: [n]) -> [n] = x * 2.0   #~ E0203

fn _unchecked_f(x: [n]) -> [n] = x   #~ E0203

fn f(_ss_g_n: [n]) -> [n] = _ss_g_n   #~ E0203
